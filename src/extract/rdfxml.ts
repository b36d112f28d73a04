import { RdfXmlParser } from 'rdfxml-streaming-parser';
import type { Quad } from '@rdfjs/types';
import { decodeText, xmlDeclaredEncoding } from './charset.ts';
import { abortedDiagnostic, errorDiagnostic, inFormat, quadLimitDiagnostic } from './diagnostics.ts';
import type { Diagnostic, ExtractContext, ExtractInput, ExtractResult, Extractor } from './types.ts';

/**
 * Bounds for DTD entities. The library (saxes underneath) defines every internal
 * `<!ENTITY name "value">` and substitutes it without re-parsing, so nested entities stay
 * unexpanded and a large value referenced many times multiplies the document. We resolve nesting
 * ourselves within these bounds and refuse beyond them. External entities (SYSTEM/PUBLIC) are
 * never defined, so never fetched: a reference to one is an "undefined entity" parse error.
 */
export const ENTITY_LIMITS = {
  maxEntities: 256,
  /** Expanded length of one entity value. */
  maxValueLength: 64 * 1024,
  /** Characters substituted for entity references in the whole document. */
  maxTotalExpansion: 1024 * 1024,
};

/** Text is fed in slices so that an abort or the first error stops the work early. */
const CHUNK_LENGTH = 1 << 20;

const ENTITY_DECLARATION = /<!ENTITY\s+(%\s+)?([^\s%"'>]+)\s+(?:"([^"]*)"|'([^']*)'|(SYSTEM|PUBLIC)\b[^>]*)\s*>/g;
const ENTITY_REFERENCE = /&([^\s&;#][^\s&;]*);/g;

class EntityLimitError extends Error {}

/** Resolves nested references among internal entities, refusing cycles and oversized values. */
function resolveEntities(raw: Map<string, string>): Map<string, string> {
  const resolved = new Map<string, string>();
  const resolving = new Set<string>();
  const resolve = (name: string): string | undefined => {
    const done = resolved.get(name);
    if (done !== undefined) return done;
    const value = raw.get(name);
    if (value === undefined) return undefined;
    if (resolving.has(name)) throw new EntityLimitError(`entity "${name}" refers to itself`);
    resolving.add(name);
    let length = 0;
    const expanded = value.replace(ENTITY_REFERENCE, (reference, inner: string) => {
      const innerValue = resolve(inner) ?? reference;
      length += innerValue.length;
      if (length > ENTITY_LIMITS.maxValueLength) {
        throw new EntityLimitError(`entity "${name}" expands beyond ${ENTITY_LIMITS.maxValueLength} characters`);
      }
      return innerValue;
    });
    if (expanded.length > ENTITY_LIMITS.maxValueLength) {
      throw new EntityLimitError(`entity "${name}" expands beyond ${ENTITY_LIMITS.maxValueLength} characters`);
    }
    resolving.delete(name);
    resolved.set(name, expanded);
    return expanded;
  };
  for (const name of raw.keys()) resolve(name);
  return resolved;
}

type QuadSink = (quad: Quad) => void;

/** RdfXmlParser with bounded DTD entities and synchronous quad delivery (no stream buffering). */
class GuardedRdfXmlParser extends RdfXmlParser {
  readonly warnings: Diagnostic[] = [];
  private expansionBudget = ENTITY_LIMITS.maxTotalExpansion;

  constructor(
    baseIRI: string,
    private readonly sink: QuadSink,
  ) {
    super({ baseIRI, trackPosition: true });
  }

  get sax(): { write(text: string): void; close(): void; ENTITIES: Record<string, string> } {
    return (this as unknown as { saxParser: GuardedRdfXmlParser['sax'] }).saxParser;
  }

  override push(chunk: unknown): boolean {
    if (chunk !== null) this.sink(chunk as Quad);
    return true;
  }

  protected override onDoctype(doctype: string): void {
    const raw = new Map<string, string>();
    for (const match of doctype.matchAll(ENTITY_DECLARATION)) {
      const [, parameter, name, doubleQuoted, singleQuoted, external] = match;
      if (external) {
        this.warnings.push({ level: 'warning', message: `external entity "${name}" is not fetched` });
      } else if (!parameter && !raw.has(name)) {
        // XML: the first declaration of an entity binds.
        raw.set(name, doubleQuoted ?? singleQuoted ?? '');
      }
      if (raw.size > ENTITY_LIMITS.maxEntities) throw new EntityLimitError(`more than ${ENTITY_LIMITS.maxEntities} entity declarations`);
    }
    const entities = this.sax.ENTITIES;
    for (const [name, value] of resolveEntities(raw)) {
      Object.defineProperty(entities, name, {
        configurable: true,
        enumerable: true,
        get: () => {
          this.expansionBudget -= value.length;
          if (this.expansionBudget < 0) {
            throw new EntityLimitError(`entity references expand beyond ${ENTITY_LIMITS.maxTotalExpansion} characters`);
          }
          return value;
        },
      });
    }
  }
}

/** The line of an error from saxes ("3:14: ...") or from the RDF/XML layer ("Line 3 column 14: ..."). */
function lineOf(error: unknown): number | undefined {
  const message = error instanceof Error ? error.message : '';
  const match = /^(?:Line\s+)?(\d+)(?::\d+|\s+column)/.exec(message);
  return match ? Number(match[1]) : undefined;
}

export interface RdfXmlParseResult {
  quads: Quad[];
  diagnostics: Diagnostic[];
}

/** Parses RDF/XML text. Quads before the first error are kept; the error becomes a diagnostic. */
export function parseRdfXmlText(text: string, baseIRI: string, maxQuads: number, signal?: AbortSignal): RdfXmlParseResult {
  const quads: Quad[] = [];
  const diagnostics: Diagnostic[] = [];
  let failure: unknown;
  let overLimit = false;
  const parser = new GuardedRdfXmlParser(baseIRI, (quad) => {
    if (failure !== undefined) return;
    if (quads.length < maxQuads) quads.push(quad);
    else overLimit = true;
  });
  parser.on('error', (error: unknown) => {
    failure ??= error;
  });
  const fail = (error: unknown): void => {
    failure ??= error;
  };
  for (let start = 0; start < text.length && failure === undefined && !overLimit; start += CHUNK_LENGTH) {
    if (signal?.aborted) {
      diagnostics.push(abortedDiagnostic());
      break;
    }
    try {
      parser._transform(text.slice(start, start + CHUNK_LENGTH), 'utf8', (error) => {
        if (error) fail(error);
      });
    } catch (error) {
      fail(error);
    }
  }
  if (failure === undefined && !overLimit && !signal?.aborted) {
    // The library never closes its XML parser; closing reports truncated documents.
    try {
      parser.sax.close();
    } catch (error) {
      fail(error);
    }
  }
  diagnostics.push(...parser.warnings);
  if (failure !== undefined) diagnostics.push(errorDiagnostic(failure, lineOf(failure)));
  if (overLimit) diagnostics.push(quadLimitDiagnostic(maxQuads));
  return { quads, diagnostics };
}

export const rdfXmlExtractor: Extractor = {
  name: 'rdf-xml',
  mediaTypes: ['application/rdf+xml', 'application/rdf', 'text/rdf'],
  async extract(input: ExtractInput, ctx: ExtractContext): Promise<ExtractResult> {
    if (ctx.signal?.aborted) return { quads: [], links: [], diagnostics: [abortedDiagnostic()] };
    const decoding: Diagnostic[] = [];
    const text = decodeText(input.body, input.charset ?? xmlDeclaredEncoding(input.body), decoding);
    const { quads, diagnostics } = parseRdfXmlText(text, input.url, ctx.maxQuads, ctx.signal);
    return { quads, links: [], diagnostics: [...decoding, ...inFormat(diagnostics, 'RDF/XML')] };
  },
};
