import { Parser } from 'n3';
import type { Quad } from '@rdfjs/types';
import { decodeText } from './charset.ts';
import { abortedDiagnostic, errorDiagnostic, inFormat, quadLimitDiagnostic } from './diagnostics.ts';
import type { Diagnostic, ExtractContext, ExtractInput, ExtractResult, Extractor } from './types.ts';

/** The n3 parser's format names. */
export type N3Format = 'Turtle' | 'N-Triples' | 'N-Quads' | 'TriG' | 'N3';

export interface N3ParseResult {
  quads: Quad[];
  diagnostics: Diagnostic[];
}

/**
 * Parses Turtle-family text with n3's callback parser (its fastest path). Quads emitted before
 * a syntax error are kept; the error becomes a diagnostic with its line. Past `maxQuads`
 * the parser runs on (it cannot be stopped from its callback) but nothing more is kept.
 */
export function parseN3Text(text: string, format: N3Format, baseIRI: string, maxQuads: number): Promise<N3ParseResult> {
  return new Promise((resolve) => {
    const quads: Quad[] = [];
    const diagnostics: Diagnostic[] = [];
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      if (quads.length >= maxQuads && overLimit) diagnostics.push(quadLimitDiagnostic(maxQuads));
      resolve({ quads, diagnostics });
    };
    let overLimit = false;
    let parser: Parser;
    try {
      parser = new Parser({ baseIRI, format });
    } catch (error) {
      diagnostics.push(errorDiagnostic(error));
      finish();
      return;
    }
    try {
      parser.parse(text, (error, quad) => {
        if (finished) return;
        if (error) {
          const line = (error as Error & { context?: { line?: number } }).context?.line;
          diagnostics.push(errorDiagnostic(error, line));
          finish();
        } else if (quad) {
          if (quads.length < maxQuads) quads.push(quad);
          else overLimit = true;
        } else {
          finish();
        }
      });
    } catch (error) {
      // The parser reports through the callback; a throw here is a parser bug, not a crash of ours.
      diagnostics.push(errorDiagnostic(error));
      finish();
    }
  });
}

/** An extractor for one n3 format under the media types that name it. */
function n3Extractor(name: string, format: N3Format, mediaTypes: readonly string[]): Extractor {
  return {
    name,
    mediaTypes,
    async extract(input: ExtractInput, ctx: ExtractContext): Promise<ExtractResult> {
      if (ctx.signal?.aborted) return { quads: [], links: [], diagnostics: [abortedDiagnostic()] };
      const decoding: Diagnostic[] = [];
      const text = decodeText(input.body, input.charset, decoding);
      const { quads, diagnostics } = await parseN3Text(text, format, input.url, ctx.maxQuads);
      return { quads, links: [], diagnostics: [...decoding, ...inFormat(diagnostics, format)] };
    },
  };
}

export const turtleExtractor = n3Extractor('turtle', 'Turtle', ['text/turtle', 'application/x-turtle', 'application/turtle']);
export const ntriplesExtractor = n3Extractor('n-triples', 'N-Triples', ['application/n-triples', 'text/ntriples', 'text/x-ntriples']);
export const nquadsExtractor = n3Extractor('n-quads', 'N-Quads', ['application/n-quads', 'text/x-nquads', 'text/nquads']);
export const trigExtractor = n3Extractor('trig', 'TriG', ['application/trig', 'application/x-trig']);
/** N3 is a superset of Turtle; documents served as text/n3 are almost always plain Turtle. */
export const notation3Extractor = n3Extractor('n3', 'N3', ['text/n3', 'text/rdf+n3']);
