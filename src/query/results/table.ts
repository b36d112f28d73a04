import { plural } from '../../util/units.ts';
import type { SparqlJsonResults, SparqlJsonTerm } from '../../versions/types.ts';

// Apart from sparql.ts, so that a process that only prints a result (the CLI's main thread, whose
// query runs on a thread of its own) does not load Oxigraph for it.

/** A term of a JSON result as text for a terminal table or CSV: IRIs in <>, literals quoted with tags. */
export function termText(term: SparqlJsonTerm | undefined): string {
  if (!term) return '';
  if (term.type === 'triple' && typeof term.value === 'object') {
    return `<< ${termText(term.value.subject)} ${termText(term.value.predicate)} ${termText(term.value.object)} >>`;
  }
  const value = String(term.value);
  if (term.type === 'uri') return `<${value}>`;
  if (term.type === 'bnode') return `_:${value}`;
  const quoted = JSON.stringify(value);
  if (term['xml:lang']) return `${quoted}@${term['xml:lang']}`;
  if (term.datatype && term.datatype !== 'http://www.w3.org/2001/XMLSchema#string') return `${quoted}^^<${term.datatype}>`;
  return quoted;
}

/** A SELECT/ASK result (JSON format) as an aligned text table for a terminal. */
export function renderTable(results: SparqlJsonResults, maxWidth = 80): string {
  if (typeof results.boolean === 'boolean') return `${results.boolean}\n`;
  const vars = results.head.vars ?? [];
  const bindings = results.results?.bindings ?? [];
  const clip = (s: string): string => (s.length > maxWidth ? s.slice(0, maxWidth - 1) + '…' : s);
  const rows = bindings.map((b) => vars.map((v) => clip(termText(b[v]))));
  const header = vars.map((v) => `?${v}`);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i])).join(' │ ').trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('─┼─');
  const count = `${plural(bindings.length, 'result')}`;
  return [line(header), rule, ...rows.map(line), count].join('\n') + '\n';
}
