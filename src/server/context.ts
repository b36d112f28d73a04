import type { FastifyRequest } from 'fastify';
import type { MetadataStore } from '../store/types.ts';
import type { VersionIndex } from '../versions/version-index.ts';
import type { VersionBackend } from '../versions/backend.ts';
import type { QueryEngine } from '../query/engine/index.ts';
import { UserError } from '../util/errors.ts';

/** What every route reads: the archive on disk, its stores, and the server's configuration. */
export interface ServerContext {
  dataDir: string;
  store: MetadataStore;
  /** The versioned store, caught up with the crawl log before each query: read it through currentArchive. */
  index: VersionIndex;
  /** How long a request waits for a running catch-up (INDEX_WAIT_MS unless the server was told otherwise). */
  indexWaitMs: number;
  /** Runs SPARQL queries in query processes, under the server's limits. */
  engine: QueryEngine;
  /** Bearer token for writes; without one, writes are refused. */
  token?: string;
  /** Output of `datamonitor lab recrawl --json`, shown on the dashboard. */
  labFile?: string;
  /** Members per LDES fragment page (ldes.ts LDES_PAGE_SIZE unless told otherwise). */
  ldesPageSize?: number;
  /**
   * Absolute base of every link this server writes (Memento and CDXJ links must be absolute URIs), no trailing
   * slash: `serve --public-url`, else the address it listens on. Never the request's Host header, which any
   * client sets (a reflected Host would let a forged request plant links to another site in cached answers).
   */
  publicUrl(): string;
}

/**
 * How long a request waits for the index to catch up with the crawl log. A new archive of 100,000
 * documents takes minutes to index: past this, the request is answered 503 with how far the catch-up is
 * and a Retry-After from its pace, instead of a connection held silent (or cut by a proxy's timeout).
 */
export const INDEX_WAIT_MS = 10_000;

/** The versioned store caught up with the crawl log, or IndexCatchingUpError after ctx.indexWaitMs. */
export function currentArchive(ctx: ServerContext): Promise<VersionBackend> {
  return ctx.index.current({ waitMs: ctx.indexWaitMs });
}

/**
 * A public base URL as given by the user: an http(s) URL without query or fragment, returned without its
 * trailing slash; a UserError saying what to give otherwise.
 */
export function checkPublicUrl(given: string): string {
  let u: URL | undefined;
  try {
    u = new URL(given);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.search || u.hash || u.username || u.password) {
    throw new UserError(`public URL '${given}' is not an http(s) URL without query, fragment or credentials: give the address clients use, e.g. https://archive.example.org`);
  }
  return u.href.replace(/\/+$/, '');
}

/** The path this server is reached under (`/archive` for https://example.org/archive), '' at the root: root-relative links start with it. */
export function publicPath(ctx: ServerContext): string {
  return new URL(ctx.publicUrl()).pathname.replace(/\/+$/, '');
}

/**
 * The archived URL that follows a route prefix in the raw request target, Wayback style
 * (`/timemap/link/http://example.org/a?b=c`): taken from the raw URL because the query string belongs to
 * the archived URL. A percent-encoded URL (`http%3A%2F%2F…`) is decoded.
 */
export function targetAfter(req: FastifyRequest, prefix: RegExp): string {
  const raw = req.raw.url ?? '';
  const m = prefix.exec(raw);
  const rest = m ? raw.slice(m[0].length) : '';
  return /^https?%3A/i.test(rest) ? safeDecode(rest) : rest;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The URL of a listen address (an unspecified address is reached as the loopback one). */
export function listenUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/**
 * A submitted list's entry as an error message shows it: a string as it is, anything else by its JSON
 * type. Never String(): an array nested 100,000 deep (valid JSON, which JSON.parse takes) overflows the
 * stack when written out, and the client got a 500 instead of its 400.
 */
export function entryText(entry: unknown): string {
  if (typeof entry === 'string') return entry;
  if (Array.isArray(entry)) return '(a JSON array, not a URL string)';
  return entry === null ? '(null, not a URL string)' : `(a JSON ${typeof entry}, not a URL string)`;
}
