import type { Quad, Term } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { canonicalize, type CanonicalMethod } from '../../rdf/canonical.ts';
import { extract } from '../../extract/registry.ts';
import { documentLinks } from '../../extract/links.ts';
import type { Diagnostic, ExtractInput, FoundLink } from '../../extract/types.ts';

/**
 * A document's analysis: extraction, links and the canonical graph, the CPU-heavy part of a capture.
 * One function, run inline for small documents and on a pool thread (./pool.ts) for large ones, so
 * both paths give the same result.
 */
export interface Analysis {
  quads: Quad[];
  links: FoundLink[];
  diagnostics: Diagnostic[];
  robots?: { noindex: boolean; nofollow: boolean };
  title?: string;
  text?: string;
  /** Page requisites (src/extract/html/requisites.ts): images, style sheets, scripts the page loads. */
  requisites?: string[];
  /** Where the page's own HTML-as-triples (docs/vocabulary.md) start in `quads`: before it, the author's data. */
  pageQuadsFrom?: number;
  /** Absent when noindex kept the triples out. */
  canonical: { nquads: string; hash: string; method: CanonicalMethod };
}

export interface AnalyseOptions {
  maxQuads: number;
  loadDocument?: (url: string) => Promise<unknown>;
  /** Work out the page's requisites (--page-requisites). */
  requisites?: boolean;
  /** Read the document's plain text (HTML), for link ordering: on a thread it must be sent back. */
  wantText?: boolean;
}

export async function analyse(input: ExtractInput, o: AnalyseOptions): Promise<Analysis> {
  const result = await extract(input, { maxQuads: o.maxQuads, loadDocument: o.loadDocument, requisites: o.requisites });
  const quads = result.robots?.noindex ? [] : result.quads;
  // Nofollow links stay in the list, marked: the crawl records them and follows none of them.
  const links = documentLinks(result);
  const canon = await canonicalize(quads);
  const out: Analysis = { quads, links, diagnostics: result.diagnostics, robots: result.robots, title: result.title, canonical: canon };
  if (result.requisites?.length) out.requisites = result.requisites;
  if (result.pageQuadsFrom !== undefined && quads.length > 0) out.pageQuadsFrom = result.pageQuadsFrom;
  if (o.wantText) out.text = result.text;
  else Object.defineProperty(out, 'text', { enumerable: true, get: () => result.text }); // folded only if read
  return out;
}

// ---- the thread's wire form: quads as one flat string array (4 per quad), cheap to clone -------

const SEP = '\u0001';

function encodeTerm(t: Term): string {
  switch (t.termType) {
    case 'NamedNode': return `I${t.value}`;
    case 'BlankNode': return `B${t.value}`;
    case 'Literal': return `L${t.language}${SEP}${t.datatype.value}${SEP}${t.value}`;
    case 'DefaultGraph': return 'D';
    default: return `I${t.value}`;
  }
}

export function encodeQuads(quads: Quad[]): string[] {
  const out = new Array<string>(quads.length * 4);
  let i = 0;
  for (const q of quads) {
    out[i++] = encodeTerm(q.subject);
    out[i++] = encodeTerm(q.predicate);
    out[i++] = encodeTerm(q.object);
    out[i++] = encodeTerm(q.graph);
  }
  return out;
}

const { quad, namedNode, blankNode, literal, defaultGraph } = DataFactory;

function decodeTerm(s: string): Term {
  switch (s[0]) {
    case 'B': return blankNode(s.slice(1));
    case 'D': return defaultGraph();
    case 'L': {
      const a = s.indexOf(SEP);
      const b = s.indexOf(SEP, a + 1);
      const lang = s.slice(1, a);
      return literal(s.slice(b + 1), lang || namedNode(s.slice(a + 1, b)));
    }
    default: return namedNode(s.slice(1));
  }
}

/**
 * The quads again as objects, in slices with a turn of the event loop between them: remaking a large
 * document's quads is the main thread's share of its analysis, and other hosts' fetches go on meanwhile.
 */
export async function decodeQuads(flat: string[], slice = 20_000): Promise<Quad[]> {
  const out = new Array<Quad>(flat.length / 4);
  for (let i = 0, j = 0; i < flat.length; ) {
    for (const end = Math.min(flat.length, i + slice * 4); i < end; i += 4) {
      out[j++] = quad(decodeTerm(flat[i]!) as never, decodeTerm(flat[i + 1]!) as never, decodeTerm(flat[i + 2]!) as never, decodeTerm(flat[i + 3]!) as never);
    }
    if (i < flat.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
}
