/** What the fetch layer hands to the rest of the pipeline: one HTTP exchange, redirects followed. */

export type Header = [name: string, value: string];

/** A redirect the fetcher followed: the URL that answered `status`, and the URL its Location led to (resolved, as followed). */
export interface RedirectHop {
  url: string;
  status: number;
  target: string;
}

export type FetchErrorCode =
  | 'dns' // name did not resolve
  | 'connect' // refused, reset, unreachable (`network` says which)
  | 'timeout' // a phase ran out of time (`phase` says which)
  | 'tls' // the TLS handshake failed (garbage, bad certificate, closed mid-handshake)
  | 'blocked-address' // private/loopback/link-local target without --allow-private
  | 'redirect-loop'
  | 'too-many-redirects'
  | 'bad-url'
  | 'robots' // disallowed by robots.txt
  | 'robots-unavailable' // robots.txt 5xx or timeout: the host is deferred
  | 'decode' // broken gzip/deflate/br
  | 'protocol'
  | 'aborted';

/** Which deadline ended a request: each phase has its own limit in FetchOptions, the total caps them all. */
export type TimeoutPhase = 'connect' | 'tls' | 'headers' | 'body' | 'total';

export interface FetchError {
  code: FetchErrorCode;
  message: string;
  /** Set when code is 'timeout'. */
  phase?: TimeoutPhase;
  /** Set when code is 'connect': what became of the connection. */
  network?: 'refused' | 'reset' | 'unreachable';
  /** Set when code is 'dns' and the resolver said to try again (EAI_AGAIN: no answer for now), not that the name does not exist. */
  temporary?: boolean;
}

export interface FetchResponse {
  /** The URL that was asked for. */
  requestUrl: string;
  /** The URL of the body after following redirects. */
  finalUrl: string;
  /** Each redirect hop in order; empty when there was none. */
  hops: RedirectHop[];
  /** Set when a 303 See Other led from a resource IRI to the document that describes it. */
  seeOther?: { resource: string; document: string };
  status: number;
  statusText: string;
  httpVersion: string;
  requestHeaders: Header[];
  /** Response headers exactly as received, in order. */
  headers: Header[];
  /** Bytes as transferred (still content-encoded): what goes into WARC. */
  rawBody: Buffer;
  /** Bytes after content-decoding: what the extractors read. */
  body: Buffer;
  /** The body hit --max-body (or the inflate limit) and was cut. */
  truncated: boolean;
  /** Lower-cased media type without parameters, '' when absent. */
  mediaType: string;
  /** The charset parameter of Content-Type, if any. */
  charset?: string;
  startedAt: Date;
  /** Time from sending the request to the end of the body. */
  durationMs: number;
  /** The server answered 304 to a conditional request (a 304 to a request without validators is not this: it is a broken answer). */
  notModified: boolean;
  /** IP address the final response came from. */
  remoteAddress?: string;
  /**
   * Through a proxy, a name we could not resolve ourselves is left to the proxy, so its address was
   * not checked against the private-address policy: the crawl should say so (see checkProxiedTarget).
   */
  addressUnchecked?: boolean;
}

export interface FetchOutcome {
  response?: FetchResponse;
  error?: FetchError;
  /** Set on 429/503 with Retry-After, or on robots 5xx: do not fetch from this host before then. Always a valid Date. */
  retryAfter?: Date;
  /** The wait the server asked for, in ms (finite, ≥ 0, uncapped: capping is the crawl's policy). */
  retryAfterMs?: number;
  /**
   * When the last request of the fetch (its last redirect hop) was written to its connection (ms since the
   * epoch); absent when none was. A crawl spaces requests to a host from this, not from when it asked: a
   * fetch can wait for a connection long after it is asked for (seconds on a loaded machine, #14).
   */
  sentAt?: number;
}

export interface ConditionalHeaders {
  etag?: string;
  lastModified?: string;
}

/** What one request asks for beyond the fetcher's defaults. */
export interface RequestOverrides {
  /** This request's Accept header instead of the fetcher's (`crawl --variants` asks for each representation). */
  accept?: string;
}

export interface Fetcher {
  fetch(url: string, conditional?: ConditionalHeaders, signal?: AbortSignal, overrides?: RequestOverrides): Promise<FetchOutcome>;
  close(): Promise<void>;
}

export interface FetchOptions {
  userAgent: string;
  /** Accept header; defaults to one that prefers RDF over HTML. */
  accept?: string;
  /** TCP connect (to the origin, or to the proxy and through its CONNECT). */
  connectTimeoutMs: number;
  /** TLS handshake once the transport is up (default: connectTimeoutMs). */
  tlsTimeoutMs?: number;
  /** From the request being written to the end of the response headers. */
  headersTimeoutMs: number;
  /** Longest silence between body bytes (default: headersTimeoutMs). */
  bodyIdleTimeoutMs?: number;
  /** The whole fetch, redirects included: caps every phase. */
  totalTimeoutMs: number;
  maxBodyBytes: number;
  maxInflatedBytes: number;
  maxRedirects: number;
  allowPrivate: boolean;
  proxy?: string;
  /** Connections kept per origin by the HTTP agent. */
  connectionsPerOrigin: number;
}
