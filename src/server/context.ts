import type { FastifyRequest } from 'fastify';
import type { MetadataStore } from '../store/types.ts';
import type { VersionIndex } from '../query/version-index.ts';
import type { QueryEngine } from '../query/engine/index.ts';

/** What every route reads: the archive on disk, its stores, and the server's configuration. */
export interface ServerContext {
  dataDir: string;
  store: MetadataStore;
  /** The versioned store, caught up with the crawl log before each query. */
  index: VersionIndex;
  /** Runs SPARQL queries in query processes, under the server's limits. */
  engine: QueryEngine;
  /** Bearer token for writes; without one, writes are refused. */
  token?: string;
  /** Output of `datamonitor lab recrawl --json`, shown on the dashboard. */
  labFile?: string;
}

/** Absolute base of this server as the client reached it (Memento and CDXJ links must be absolute URIs). */
export function baseUrl(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`;
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
