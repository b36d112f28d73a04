import type { Quad, Term } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { canonicalize } from '../../rdf/canonical.ts';
import { HTML_MEDIA_TYPES } from '../../extract/registry.ts';
import { XHV } from '../../extract/html/vocab.ts';
import { essenceOf } from '../../util/content-type.ts';

const { namedNode, quad } = DataFactory;

/** One representation's graph, as it is compared with the others of its document. */
export interface ComparedGraph {
  /** The canonical N-Quads (src/rdf/canonical.ts), one line a quad. */
  nquads: string;
  hash: string;
  triples: number;
  /** An HTML page without RDF of its own carries nothing to compare: it is not a disagreement. */
  carriesRdf: boolean;
}

/** What the HTML of a page says about the page (links, title): our mapping's triples, not the author's data. */
const isHtml = (mediaType: string) => (HTML_MEDIA_TYPES as readonly string[]).includes(essenceOf(mediaType));

/**
 * A representation's graph in the form that is compared: for HTML only the author's data (the triples
 * before `pageQuadsFrom`, without the `xhv:` link relations RDFa states for `<link rel>`: the page's
 * links, not its data); IRIs of the representation's own URL (and its fragments) read as the document's,
 * because an alternate at `/doc.jsonld` that says `#me` means the same thing as `/doc`'s `#me`.
 */
export async function comparedGraph(quads: readonly Quad[], mediaType: string, pageQuadsFrom: number | undefined, ownUrl: string, documentUrl: string): Promise<ComparedGraph> {
  const html = isHtml(mediaType);
  let data = html ? quads.slice(0, pageQuadsFrom ?? quads.length).filter((q) => !q.predicate.value.startsWith(XHV)) : [...quads];
  if (ownUrl !== documentUrl) {
    const map = (t: Term): Term => {
      if (t.termType !== 'NamedNode') return t;
      if (t.value === ownUrl) return namedNode(documentUrl);
      return t.value.startsWith(`${ownUrl}#`) ? namedNode(documentUrl + t.value.slice(ownUrl.length)) : t;
    };
    data = data.map((q) => quad(map(q.subject) as Quad['subject'], q.predicate, map(q.object) as Quad['object'], map(q.graph) as Quad['graph']));
  }
  const canon = await canonicalize(data);
  return { nquads: canon.nquads, hash: canon.hash, triples: data.length, carriesRdf: data.length > 0 || !html };
}

/** How two graphs differ: canonical lines of the reference the other lacks, lines it has in excess, a few of each. */
export interface GraphDifference {
  missing: number;
  extra: number;
  examples: string[];
}

/**
 * Line by line over the canonical forms. Where blank nodes differ their canonical labels may move, so the
 * counts are an upper bound then; the hashes alone decide whether the graphs differ.
 */
export function difference(reference: ComparedGraph, other: ComparedGraph, shown = 3): GraphDifference {
  const lines = (g: ComparedGraph) => new Set(g.nquads.split('\n').filter(Boolean));
  const a = lines(reference);
  const b = lines(other);
  const missing = [...a].filter((l) => !b.has(l));
  const extra = [...b].filter((l) => !a.has(l));
  return {
    missing: missing.length,
    extra: extra.length,
    examples: [...missing.slice(0, shown).map((l) => `- ${l}`), ...extra.slice(0, shown).map((l) => `+ ${l}`)],
  };
}
