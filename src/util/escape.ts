const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes a string for XML, HTML and SVG: as element text and as an attribute value in either
 * quote. All five special characters are escaped everywhere, so one function serves every place
 * and no caller has to know which of them its context makes special. `&#39;`, not `&apos;`,
 * because HTML 4 has no `&apos;`.
 */
export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/**
 * Escapes an attribute value with as few changes as are safe: `&` and the quote that delimits it.
 * For rewriting a value in place in someone else's markup (archived pages at replay), where every
 * byte not rewritten should stay as the page had it: a `'` inside `"…"` stays a `'`.
 */
export function escapeAttributeValue(s: string, quote: '"' | "'"): string {
  return s.replace(quote === '"' ? /[&"]/g : /[&']/g, (c) => ENTITIES[c]!);
}
