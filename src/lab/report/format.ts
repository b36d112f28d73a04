/** Small formatting helpers shared by the report's providers and its page. */
import { escapeXml } from '../../util/escape.ts';

export const pct = (v: number, digits = 1) => `${(100 * v).toFixed(digits)} %`;

/** An HTML table; cells are text (escaped here). */
export function table(head: string[], rows: string[][]): string {
  const cell = (tag: string, v: string, i: number) => `<${tag}${i > 0 ? ' class="num"' : ''}>${escapeXml(v)}</${tag}>`;
  return `<table><thead><tr>${head.map((h, i) => cell('th', h, i)).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((v, i) => cell('td', v, i)).join('')}</tr>`).join('')}</tbody></table>`;
}
