import { JsonLdParser } from 'jsonld-streaming-parser';
import type { Quad } from '@rdfjs/types';
import { decodeText } from './charset.ts';
import { abortedDiagnostic, errorDiagnostic, inFormat, quadLimitDiagnostic } from './diagnostics.ts';
import type { Diagnostic, ExtractContext, ExtractInput, ExtractResult, Extractor } from './types.ts';
import { parseLinkHeader } from '../util/link-format.ts';

export const JSONLD_LIMITS = {
  /** Distinct remote contexts one document may load. */
  maxRemoteContexts: 10,
  /** Loader calls per document, cache hits included (scoped contexts are re-applied often). */
  maxContextLoads: 200,
  /** Nesting of JSON arrays and objects; real JSON-LD stays far below. */
  maxDepth: 256,
};

const JSONLD_CONTEXT_REL = 'http://www.w3.org/ns/json-ld#context';

/**
 * The nesting depth of JSON text, stopping as soon as it exceeds `limit`. A cheap scan before
 * parsing, because the streaming parser's work grows with depth on every value.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/** Where JSON text breaks the JSON grammar (RFC 8259) and what was expected there. */
export interface JsonSyntaxError {
  message: string;
  line: number;
}

const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class JsonGrammarError extends Error {}

/**
 * Checks JSON text against the grammar. The streaming JSON-LD parser accepts what JSON does not
 * (a trailing comma, two documents in a row, `01`) and says nothing of an empty or cut-off literal,
 * so a broken document would pass without a word. Call after jsonDepthExceeds: recursion is bounded by it.
 */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let i = 0;
  const n = text.length;
  const expected = (what: string): never => {
    const found = i >= n ? 'the end of the document' : JSON.stringify(text.slice(i, i + 10));
    throw new JsonGrammarError(`expected ${what}, found ${found}`);
  };
  const space = (): void => {
    for (let c = text.charCodeAt(i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = text.charCodeAt(++i));
  };
  const string = (): void => {
    for (i++; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) return void i++;
      if (c < 0x20) expected('no control character inside a string');
      if (c === 0x5c) {
        const e = text[++i];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) expected('four hex digits after \\u');
          i += 4;
        } else if (e === undefined || !'"\\/bfnrt'.includes(e)) expected('an escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)');
      }
    }
    expected('the closing quote of a string');
  };
  const members = (close: number, member: () => void, what: string): void => {
    i++;
    space();
    if (text.charCodeAt(i) === close) return void i++;
    for (;;) {
      member();
      space();
      const c = text.charCodeAt(i);
      if (c === 0x2c) {
        i++;
        space();
        continue;
      }
      if (c === close) return void i++;
      expected(what);
    }
  };
  const value = (): void => {
    space();
    const c = text.charCodeAt(i);
    if (c === 0x7b) {
      return members(0x7d, () => {
        if (text.charCodeAt(i) !== 0x22) expected('a "quoted" member name');
        string();
        space();
        if (text.charCodeAt(i) !== 0x3a) expected("':' after a member name");
        i++;
        value();
      }, "',' or '}'");
    }
    if (c === 0x5b) return members(0x5d, value, "',' or ']'");
    if (c === 0x22) return string();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      JSON_NUMBER.lastIndex = i;
      if (!JSON_NUMBER.test(text)) expected('a number');
      i = JSON_NUMBER.lastIndex;
      return;
    }
    for (const word of ['true', 'false', 'null']) if (text.startsWith(word, i)) return void (i += word.length);
    expected('a value');
  };
  try {
    value();
    space();
    if (i < n) expected('the end of the document');
    return undefined;
  } catch (error) {
    if (!(error instanceof JsonGrammarError)) throw error;
    let line = 1;
    for (let at = text.indexOf('\n'); at >= 0 && at < i; at = text.indexOf('\n', at + 1)) line++;
    return { message: `invalid JSON at line ${line}: ${error.message}`, line };
  }
}

interface RemoteContextLoader {
  load(url: string): Promise<Record<string, unknown>>;
  close(): void;
}

/**
 * The document loader for one document: remote contexts go through ctx.loadDocument (the
 * crawler's polite fetcher), are cached per document, and are bounded in number. Cycles and
 * inclusion depth are caught by jsonld-context-parser itself (RECURSIVE_CONTEXT_INCLUSION,
 * CONTEXT_OVERFLOW at 32 levels); the bounds here cap what a cycle or a fan-out can cost.
 */
function remoteContextLoader(loadDocument: ExtractContext['loadDocument']): RemoteContextLoader {
  const cache = new Map<string, Promise<Record<string, unknown>>>();
  let loads = 0;
  let closed = false;
  return {
    load(url: string) {
      if (closed) return Promise.reject(new Error('document already finished'));
      if (!loadDocument) return Promise.reject(new Error('remote contexts are not loaded here (no loader)'));
      if (!/^https?:\/\//i.test(url)) return Promise.reject(new Error('only http(s) contexts are loaded'));
      if (++loads > JSONLD_LIMITS.maxContextLoads) {
        return Promise.reject(new Error(`more than ${JSONLD_LIMITS.maxContextLoads} context loads`));
      }
      const cached = cache.get(url);
      if (cached) return cached;
      if (cache.size >= JSONLD_LIMITS.maxRemoteContexts) {
        return Promise.reject(new Error(`more than ${JSONLD_LIMITS.maxRemoteContexts} remote contexts`));
      }
      const loaded = Promise.resolve()
        .then(() => loadDocument(url))
        .then((document) => {
          if (typeof document !== 'object' || document === null || Array.isArray(document)) {
            throw new Error('remote context is not a JSON object');
          }
          return document as Record<string, unknown>;
        });
      cache.set(url, loaded);
      return loaded;
    },
    close() {
      closed = true;
    },
  };
}

/** The JSON-LD context named by a Link header (rel=http://www.w3.org/ns/json-ld#context), if any. */
export function contextFromLinkHeader(link: string | undefined): string | undefined {
  return parseLinkHeader(link).find((l) => l.rels.includes(JSONLD_CONTEXT_REL))?.target;
}

export interface JsonLdParseOptions {
  baseIRI: string;
  maxQuads: number;
  loadDocument?: ExtractContext['loadDocument'];
  signal?: AbortSignal;
  /** A context from a Link header (for plain application/json). */
  context?: string;
}

class CollectingJsonLdParser extends JsonLdParser {
  sink: (quad: Quad) => void = () => {};
  override push(chunk: unknown): boolean {
    if (chunk === null) return super.push(null);
    this.sink(chunk as Quad);
    return true;
  }
}

/** Parses JSON-LD text. Quads before the first error are kept; the error becomes a diagnostic. */
export async function parseJsonLdText(text: string, options: JsonLdParseOptions): Promise<{ quads: Quad[]; diagnostics: Diagnostic[] }> {
  const quads: Quad[] = [];
  const diagnostics: Diagnostic[] = [];
  if (jsonDepthExceeds(text, JSONLD_LIMITS.maxDepth)) {
    diagnostics.push({ level: 'error', message: `JSON nested deeper than ${JSONLD_LIMITS.maxDepth} levels: not parsed` });
    return { quads, diagnostics };
  }
  const invalid = jsonSyntaxError(text);
  const loader = remoteContextLoader(options.loadDocument);
  let overLimit = false;
  let done = false;
  const parser = new CollectingJsonLdParser({
    baseIRI: options.baseIRI,
    context: options.context,
    documentLoader: loader as never,
  });
  let stop = (): void => {};
  parser.sink = (quad) => {
    if (done) return;
    if (quads.length < options.maxQuads) return void quads.push(quad);
    overLimit = true;
    stop();
  };
  await new Promise<void>((resolve) => {
    const finish = (diagnostic?: Diagnostic): void => {
      if (done) return;
      done = true;
      loader.close();
      // Pending value jobs are abandoned: nothing they produce is kept.
      parser.destroy();
      options.signal?.removeEventListener('abort', onAbort);
      if (diagnostic) diagnostics.push(diagnostic);
      resolve();
    };
    const onAbort = (): void => finish(abortedDiagnostic());
    stop = () => finish();
    if (options.signal?.aborted) return finish(abortedDiagnostic());
    options.signal?.addEventListener('abort', onAbort);
    parser.on('error', (error: unknown) => finish(errorDiagnostic(error)));
    parser.on('end', () => finish());
    parser.resume();
    try {
      parser.end(text);
    } catch (error) {
      finish(errorDiagnostic(error));
    }
  });
  if (overLimit) diagnostics.push(quadLimitDiagnostic(options.maxQuads));
  if (!invalid) return { quads, diagnostics };
  // The quads before the break are kept, as for every format; the parser's own word for the break
  // ("Unexpected COMMA in state VALUE", or none) gives way to the grammar's.
  const others = diagnostics.filter((d) => d.reason !== 'parse-error');
  return { quads, diagnostics: [{ level: 'error', message: invalid.message, line: invalid.line, reason: 'parse-error' }, ...others] };
}

export const jsonLdExtractor: Extractor = {
  name: 'json-ld',
  mediaTypes: ['application/ld+json', 'application/activity+json'],
  async extract(input: ExtractInput, ctx: ExtractContext): Promise<ExtractResult> {
    const decoding: Diagnostic[] = [];
    const text = decodeText(input.body, input.charset, decoding);
    const context = input.mediaType === 'application/ld+json' ? undefined : contextFromLinkHeader(input.headers.link);
    const { quads, diagnostics } = await parseJsonLdText(text, {
      baseIRI: input.url,
      maxQuads: ctx.maxQuads,
      loadDocument: ctx.loadDocument,
      signal: ctx.signal,
      context,
    });
    return { quads, links: [], diagnostics: [...decoding, ...inFormat(diagnostics, 'JSON-LD')] };
  },
};
