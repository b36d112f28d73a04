import type { Quad, Term } from '@rdfjs/types';
import { htmlExtractor, xmlEmbeddedExtractor } from '../../src/extract/html/index.ts';
import type { ExtractContext, ExtractResult } from '../../src/extract/types.ts';

export const DM = 'https://w3id.org/datamonitor/ns#';
export const DCT = 'http://purl.org/dc/terms/';
export const XHV = 'http://www.w3.org/1999/xhtml/vocab#';

export interface RunOptions {
  url?: string;
  mediaType?: string;
  headers?: Record<string, string>;
  charset?: string;
  ctx?: Partial<ExtractContext>;
}

/** Runs the extractor chosen by media type on a string or raw bytes. */
export async function run(body: string | Buffer, options: RunOptions = {}): Promise<ExtractResult> {
  const mediaType = options.mediaType ?? 'text/html';
  const extractor = htmlExtractor.mediaTypes.includes(mediaType) ? htmlExtractor : xmlEmbeddedExtractor;
  return extractor.extract(
    {
      url: options.url ?? 'http://example.org/dir/page.html',
      mediaType,
      charset: options.charset,
      body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
      headers: options.headers ?? {},
    },
    { maxQuads: 100_000, ...options.ctx },
  );
}

function show(term: Term): string {
  if (term.termType === 'NamedNode') return `<${term.value}>`;
  if (term.termType === 'BlankNode') return '_';
  if (term.termType === 'Literal') return term.language ? `"${term.value}"@${term.language}` : `"${term.value}"`;
  return term.value;
}

/** Quads as "<s> <p> <o>" lines with blank nodes shown as "_" (labels are not stable). */
export function lines(result: ExtractResult): string[] {
  return result.quads.map((q: Quad) => `${show(q.subject)} ${show(q.predicate)} ${show(q.object)}`);
}

/** The objects of a subject/predicate pair. */
export function objects(result: ExtractResult, subject: string | undefined, predicate: string): string[] {
  return result.quads
    .filter((q) => (subject === undefined || q.subject.value === subject) && q.predicate.value === predicate)
    .map((q) => q.object.value);
}
