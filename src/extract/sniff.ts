/** The first element after the prolog, comments and doctype: its name and its attributes. */
const ROOT = /^(?:<\?[\s\S]*?\?>\s*|<!--[\s\S]*?-->\s*|<!doctype[^[>]*(?:\[[\s\S]*?\])?\s*>\s*)*<([\w.:-]+)([^>]*)>/i;
const RDF_NS = /xmlns:[\w.-]+\s*=\s*["']http:\/\/www\.w3\.org\/1999\/02\/22-rdf-syntax-ns#/;

/** How much of a body is looked at to guess its format. */
const SNIFF_BYTES = 4096;

export type SniffedFormat = 'rdfxml' | 'xml' | 'html' | 'json' | 'turtle' | 'nquads';

/**
 * Guesses a document's format from its first bytes. `strong` means the evidence is impossible in
 * the other families (a Turtle document cannot start with `<?xml`, JSON cannot start with
 * `@prefix`), so it may override a media type the server got wrong; weak guesses only replace
 * generic types (text/plain, application/octet-stream).
 */
export function sniffFormat(body: Uint8Array): { format: SniffedFormat; strong: boolean } | undefined {
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, SNIFF_BYTES)).toString('latin1');
  // Skip a UTF-8 BOM, whitespace and (Turtle-family) comment lines.
  const start = /^(?:\xEF\xBB\xBF)?(?:\s+|#[^\n]*\n)*/.exec(head)![0].length;
  const text = head.slice(start);
  if (text.startsWith('<')) {
    const lower = text.slice(0, 512).toLowerCase();
    const markup = lower.startsWith('<?xml') || lower.startsWith('<!');
    // RDF/XML only when the ROOT element is rdf:RDF: an rdf:RDF inside other XML is embedded RDF.
    const root = ROOT.exec(text);
    if (root && (/^rdf:rdf$/i.test(root[1]) || (/:rdf$/i.test(root[1]) && RDF_NS.test(root[2])))) {
      return { format: 'rdfxml', strong: true };
    }
    if (/^(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<!doctype\s+html/.test(lower) || /^<html[\s>]/.test(lower)) {
      return { format: 'html', strong: markup };
    }
    if (markup) return { format: 'xml', strong: true };
    if (/^(?:<[^>\s]*>|_:\S+)\s+<[^>\s]*>\s+(?:<[^>\s]*>|_:\S+|"(?:[^"\\\n]|\\.)*"(?:@[\w-]+|\^\^<[^>\s]*>)?)(?:\s+(?:<[^>\s]*>|_:\S+))?\s*\.\s*(?:#[^\n]*)?(?:\n|$)/.test(text)) {
      return { format: 'nquads', strong: false };
    }
    if (/^(?:<[^>\s]*>|_:\S+)\s+<[^>\s]*>/.test(text)) return { format: 'turtle', strong: false };
    return undefined;
  }
  if (/^\{\s*"/.test(text) || /^\[\s*[{"]/.test(text)) return { format: 'json', strong: true };
  if (/^(?:@prefix|@base)\s/.test(text) || /^(?:prefix|base)\s+\S*\s*</i.test(text)) return { format: 'turtle', strong: true };
  if (/^_:\S+\s+</.test(text)) return { format: 'turtle', strong: false };
  return undefined;
}
