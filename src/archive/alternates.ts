import { DataFactory, type Quad } from 'n3';
import { ALTERNATE_OF, PROVENANCE_GRAPH } from './namespace.ts';

export { ALTERNATE_OF };

/**
 * Alternates: representations of a document at URLs of their own that it advertises (`Link: <u>;
 * rel="alternate"`, HTML `<link rel="alternate">`), which `crawl --variants` captures as documents. They
 * are archived and versioned like any document, but they are not the document's data: the capture row of
 * one carries ALTERNATE_LINE, and the query index (src/versions/catch-up.ts) and `export --provenance` read
 * it back as `<alt> dm:alternateOf <doc>` in dm:provenance, by which queries leave the alternate's triples
 * out of their default dataset unless they name it (src/query/sparql.ts, `hiddenAlternates`).
 */

/** The capture row's line of an alternate of `docUrl`. */
export const alternateLine = (docUrl: string): string =>
  `info: alternate of <${docUrl}> (crawl --variants): kept out of the query index's default graph`;

const LINE = /^info: alternate of <([^>\s]+)>/;

/** The document a capture row's version is an alternate of, if its diagnostics say so. */
export function alternateOf(diagnostics: string[] | undefined): string | undefined {
  for (const d of diagnostics ?? []) {
    const m = LINE.exec(d);
    if (m) return m[1];
  }
  return undefined;
}

export function alternateQuads(url: string, docUrl: string, graph = PROVENANCE_GRAPH): Quad[] {
  const { namedNode, quad } = DataFactory;
  return [quad(namedNode(url), namedNode(ALTERNATE_OF), namedNode(docUrl), namedNode(graph))];
}
