/** The undici-based Fetcher: manual redirects, address safety at connect time, capped and decoded bodies. */
import diagnostics from 'node:diagnostics_channel';
import { STATUS_CODES } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { Agent, EnvHttpProxyAgent, Pool, buildConnector, type Dispatcher } from 'undici';
import { DEFAULT_ACCEPT, buildUserAgent } from './accept.ts';
import { BlockedAddressError, addressBlocker, checkedNodeLookup, systemLookup, type LookupFn } from './address.ts';
import { decodeBody } from './decode.ts';
import { skipContinue } from './interim.ts';
import { Deadline, DeadlineExceeded, type PhaseLimits, type TransportProbe } from './deadline.ts';
import { ProxyForward, type Sender } from './proxy-forward.ts';
import { parseRetryAfter, parseRetryAfterMs } from './retry-after.ts';
import { parseContentType } from '../util/content-type.ts';
import { headerValue, isRedirect, type RedirectTarget, redirectTarget } from '../util/headers.ts';
import type {
  ConditionalHeaders,
  RequestOverrides,
  FetchError,
  FetchErrorCode,
  FetchOptions,
  FetchOutcome,
  Fetcher,
  Header,
  RedirectHop,
} from './types.ts';

export { parseRetryAfter, parseRetryAfterMs, parseHttpDate } from './retry-after.ts';

export interface HttpFetcherOptions extends FetchOptions {
  /** Name resolution (default: the system resolver); see staticLookup for `--resolve HOST:IP`. */
  lookup?: LookupFn;
  /** IPs or CIDR ranges allowed even though private addresses are refused (allowPrivate=false). */
  allowAddresses?: string[];
}

export const DEFAULT_FETCH_OPTIONS: FetchOptions = {
  userAgent: buildUserAgent(),
  accept: DEFAULT_ACCEPT,
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  totalTimeoutMs: 60_000,
  maxBodyBytes: 10 * 1024 * 1024,
  maxInflatedBytes: 50 * 1024 * 1024,
  maxRedirects: 5,
  allowPrivate: false,
  connectionsPerOrigin: 4,
};

/** A redirect's own body is read only this far to keep the connection reusable. */
const REDIRECT_BODY_LIMIT = 64 * 1024;
/** Bounds the per-origin bookkeeping on a crawl of many hosts. */
const MAX_TRACKED_ORIGINS = 10_000;

class FetchFailure extends Error {
  constructor(readonly code: FetchErrorCode, message: string) {
    super(message);
  }
}

/**
 * host:port naming a connection the same way whoever reports it: undici's connector gets IPv6
 * without brackets and an empty port for the scheme's default, a URL and a CONNECT path bracket IPv6.
 */
function transportKey(hostname: string, port: string | number, protocol: string): string {
  return `${stripBrackets(hostname)}:${port || (protocol === 'https:' ? '443' : '80')}`;
}

/** Node's and OpenSSL's ways of saying a TLS handshake failed. */
function isTlsFailure(err: unknown): boolean {
  const code = errorCode(err) ?? '';
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'UND_ERR_PRX_TLS') return true;
  if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code)) return true;
  const text = describe(err);
  return /SSL routines|before secure TLS connection|tlsv1 alert|ssl3_get_record/i.test(text);
}

/** A per-signal fan-out, so a crawl's one signal carries one listener however many fetches are in flight. */
class SignalFanOut {
  private readonly watchers = new WeakMap<AbortSignal, Set<() => void>>();

  watch(signal: AbortSignal, onAbort: () => void): () => void {
    let set = this.watchers.get(signal);
    if (!set) {
      const fresh = new Set<() => void>();
      this.watchers.set(signal, (set = fresh));
      signal.addEventListener('abort', () => { for (const f of [...fresh]) f(); }, { once: true });
    }
    set.add(onAbort);
    return () => set.delete(onAbort);
  }
}

function hasProxyEnv(): boolean {
  const env = process.env;
  return Boolean(env.http_proxy || env.HTTP_PROXY || env.https_proxy || env.HTTPS_PROXY);
}

function stripBrackets(host: string): string {
  return host.startsWith('[') ? host.slice(1, -1) : host;
}

/** Raw header pairs (flat [name, value, …] latin1 strings from undici) to Header tuples. */
function toHeaders(flat: string[]): Header[] {
  const out: Header[] = new Array(flat.length >> 1);
  for (let i = 0; i < flat.length; i += 2) out[i >> 1] = [flat[i], flat[i + 1]];
  return out;
}

function errorCode(err: unknown): string | undefined {
  let e = err as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 4; depth++, e = e.cause as typeof e) {
    if (typeof e.code === 'string') return e.code;
  }
  return undefined;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return err.message + cause;
}

/** Tells, for a failed connection attempt, whether its transport was up (so the TLS handshake failed). */
type PhaseOf = () => 'connect' | 'tls';

function classifyNetworkError(err: unknown, opts: FetchOptions, phaseOf: PhaseOf): FetchError {
  if (err instanceof FetchFailure) return { code: err.code, message: err.message };
  if (err instanceof DeadlineExceeded) return { code: 'timeout', phase: err.phase, message: err.message };
  const code = errorCode(err);
  const text = describe(err);
  switch (code) {
    case 'EBLOCKEDADDRESS':
      return { code: 'blocked-address', message: text };
    case 'EAI_AGAIN':
      return { code: 'dns', temporary: true, message: `host name did not resolve for now (${text})` };
    case 'ENOTFOUND':
    case 'EAI_NODATA':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return { code: 'dns', message: `host name did not resolve (${text})` };
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT': {
      const phase = phaseOf();
      return phase === 'tls'
        ? { code: 'timeout', phase, message: `no TLS handshake within ${opts.tlsTimeoutMs ?? opts.connectTimeoutMs} ms (${text})` }
        : { code: 'timeout', phase, message: `no connection within ${opts.connectTimeoutMs} ms (${text})` };
    }
    case 'UND_ERR_HEADERS_TIMEOUT':
      return { code: 'timeout', phase: 'headers', message: `no response headers within ${opts.headersTimeoutMs} ms` };
    case 'UND_ERR_BODY_TIMEOUT':
      return { code: 'timeout', phase: 'body', message: `body stalled for ${opts.bodyIdleTimeoutMs ?? opts.headersTimeoutMs} ms` };
    case 'ECONNREFUSED':
      return { code: 'connect', network: 'refused', message: `connection refused (${text})` };
  }
  if (isTlsFailure(err)) return { code: 'tls', message: `TLS handshake failed (${text})` };
  switch (code) {
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return { code: 'connect', network: 'reset', message: `connection reset or closed by the server (${text})` };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return { code: 'connect', network: 'unreachable', message: `host unreachable (${text})` };
    case 'UND_ERR_INVALID_ARG':
      return { code: 'bad-url', message: text };
    default:
      return { code: 'protocol', message: text };
  }
}

/** One HTTP exchange's result before redirects and decoding are looked at. */
interface Exchange {
  status: number;
  statusText: string;
  headers: Header[];
  chunks: Buffer[];
  size: number;
  truncated: boolean;
}

/**
 * Sends one request and collects its response, moving `deadline` through its phases. undici's
 * dispatch (not request()) is used because only its handler learns when the request got a socket,
 * which is where connecting ends and waiting for headers begins.
 */
function exchange(dispatcher: Sender, options: Dispatcher.DispatchOptions, deadline: Deadline, probe: TransportProbe, bodyLimit: number, onSent: () => void): Promise<Exchange> {
  return new Promise<Exchange>((resolve, reject) => {
    let abort: ((err?: Error) => void) | undefined;
    let settled = false;
    // A redirect's own body is read (to keep the connection reusable) but not kept.
    let discardBody = false;
    const result: Exchange = { status: 0, statusText: '', headers: [], chunks: [], size: 0, truncated: false };
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve(result);
    };
    // The deadline's cancel: a request still waiting for its socket is aborted as soon as it gets one.
    const cancel = () => {
      finish(new FetchFailure('aborted', 'cancelled'));
      abort?.();
    };
    deadline.connecting(probe, cancel);
    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortFn) {
        abort = abortFn;
        if (settled || deadline.over) return abortFn();
        onSent();
        deadline.sent();
      },
      onHeaders(statusCode, rawHeaders, _resume, statusText) {
        if (statusCode < 200) return true; // 1xx: the real response is still to come
        result.status = statusCode;
        result.statusText = statusText;
        result.headers = toHeaders(rawHeaders.map((b) => b.toString('latin1')));
        if (isRedirect({ status: statusCode, headers: result.headers })) {
          discardBody = true;
          bodyLimit = REDIRECT_BODY_LIMIT;
        }
        deadline.receiving();
        return true;
      },
      onData(chunk) {
        if (settled) return false;
        deadline.activity();
        if (result.size + chunk.length > bodyLimit) {
          if (!discardBody) result.chunks.push(chunk.subarray(0, bodyLimit - result.size));
          result.size = bodyLimit;
          result.truncated = true;
          deadline.received();
          finish();
          abort?.(); // the rest is never read; the connection is not reused
          return false;
        }
        if (!discardBody) result.chunks.push(chunk);
        result.size += chunk.length;
        return true;
      },
      onComplete() {
        deadline.received();
        finish();
      },
      onError(err) {
        // Before the request has a socket, a headers timeout is the proxy not answering CONNECT: still connecting.
        if (!abort && errorCode(err) === 'UND_ERR_HEADERS_TIMEOUT') return finish(new DeadlineExceeded('connect', `the proxy did not answer CONNECT (${describe(err)})`));
        finish(err);
      },
    };
    try {
      dispatcher.dispatch(options, handler);
    } catch (err) {
      finish(err as Error);
    }
  });
}

/**
 * The connections of one fetcher: undici's dispatcher (direct, or through a proxy) with the address
 * check at connect time, and what it learns of each transport that a response does not carry.
 */
class Transport {
  readonly dispatcher: Sender;
  readonly proxied: boolean;
  /** host:port → address of the latest connection made there (the response does not carry its socket). */
  private readonly remoteAddresses = new Map<string, string>();
  /** host:port → when a transport (TCP, or a proxy's tunnel) there last came up: tells a TLS stall from a connect stall. */
  private readonly transportUp = new Map<string, number>();
  private readonly baseConnect: buildConnector.connector;

  constructor(opts: HttpFetcherOptions, limits: PhaseLimits, private readonly isBlocked: (address: string) => boolean, lookup: LookupFn) {
    // The connector's own timeout only tidies up a socket nobody waits for any more; the request's
    // Deadline is what ends the fetch.
    this.baseConnect = buildConnector({
      timeout: limits.connectMs + limits.tlsMs,
      lookup: checkedNodeLookup(lookup, isBlocked),
    } as buildConnector.BuildOptions);
    const agentOptions = {
      connect: this.connect,
      connections: opts.connectionsPerOrigin,
      // Backstops only: the Deadline fires first and aborts the request.
      headersTimeout: 2 * limits.headersMs,
      bodyTimeout: 2 * limits.bodyIdleMs,
    };
    this.proxied = Boolean(opts.proxy) || hasProxyEnv();
    // Plain http through a proxy that ProxyForward leaves to undici (below): undici wraps each origin in a dispatcher
    // with a pool of its own to the proxy, and keeps both for good (the wrapper reports no disconnect): 16 KB of queue a
    // pool, 1.6 GB at 100,000 hosts. One pool to each proxy serves them all, as one connection to a proxy serves any origin.
    const proxyPools = new Map<string, Pool>();
    const factory = (origin: string | URL, o: Pool.Options): Dispatcher => {
      const key = String(origin);
      const proxyUrl = opts.proxy ?? process.env.http_proxy ?? process.env.HTTP_PROXY;
      if (!proxyUrl || key !== new URL(proxyUrl).href) return new Pool(origin, o);
      let pool = proxyPools.get(key);
      if (!pool || pool.closed || pool.destroyed) proxyPools.set(key, (pool = new Pool(origin, o)));
      return pool;
    };
    const agent = this.proxied
      ? new EnvHttpProxyAgent({
          ...agentOptions,
          factory,
          ...(opts.proxy ? { httpProxy: opts.proxy, httpsProxy: opts.proxy } : {}),
          // Plain http goes as an absolute-URI request (what archiving proxies expect); https tunnels.
          proxyTunnel: false,
          // undici's own connectors for the proxy and for TLS inside a tunnel default to 10 s.
          proxyTls: { timeout: limits.connectMs },
          requestTls: { timeout: limits.tlsMs },
          // The proxy's answer to CONNECT would otherwise be awaited for undici's default 300 s (a backstop: the Deadline comes first).
          clientFactory: (origin: URL, o: Pool.Options) => new Pool(origin, { ...o, headersTimeout: 2 * limits.connectMs }),
        } as ConstructorParameters<typeof EnvHttpProxyAgent>[0])
      : new Agent(agentOptions);
    const forward = forwardingProxy(opts.proxy);
    // The proxy's own connector, as undici's wrapper gives it; the timeouts are backstops, as above.
    this.dispatcher = forward
      ? new ProxyForward(new Pool(forward, { connect: buildConnector({ timeout: limits.connectMs } as buildConnector.BuildOptions), headersTimeout: agentOptions.headersTimeout, bodyTimeout: agentOptions.bodyTimeout }), agent)
      : agent;
    if (this.proxied) diagnostics.subscribe('undici:proxy:connected', this.onTunnel);
  }

  /** The address the latest connection to host:port `key` reached. */
  remoteAddress(key: string): string | undefined {
    return this.remoteAddresses.get(key);
  }

  /** When the transport to `key` came up, if it did at `since` or later. */
  upSince(key: string, since: number): number | undefined {
    const at = this.transportUp.get(key);
    return at !== undefined && at >= since ? at : undefined;
  }

  async close(): Promise<void> {
    if (this.proxied) diagnostics.unsubscribe('undici:proxy:connected', this.onTunnel);
    // Every fetch has settled by now; what undici still holds is work a deadline abandoned (a CONNECT
    // nobody answers, say), which a graceful close() would wait for.
    await this.dispatcher.destroy();
  }

  private markUp(key: string): void {
    if (this.transportUp.size > MAX_TRACKED_ORIGINS) this.transportUp.clear();
    this.transportUp.set(key, Date.now());
  }

  // net.connect skips `lookup` for IP literals, so those are checked here before any packet is sent.
  private readonly connect: buildConnector.connector = (target, callback) => {
    const host = stripBrackets(target.hostname);
    if (isIP(host) !== 0 && this.isBlocked(host)) {
      callback(new BlockedAddressError(host, host), null);
      return;
    }
    const key = transportKey(target.hostname, target.port, target.protocol);
    const socket = this.baseConnect(target, (err, sock) => {
      if (this.remoteAddresses.size > MAX_TRACKED_ORIGINS) this.remoteAddresses.clear();
      if (sock?.remoteAddress) this.remoteAddresses.set(key, sock.remoteAddress);
      if (sock) skipContinue(sock as unknown as Socket);
      callback(err as Error, sock as never);
    }) as unknown as Socket | undefined;
    // A TLS socket says 'connect' when TCP is up and 'secureConnect' after the handshake.
    if (target.protocol === 'https:') socket?.once?.('connect', () => this.markUp(key));
  };

  // A CONNECT tunnel coming up is where, through a proxy, connecting ends and the TLS handshake begins.
  private readonly onTunnel = (message: unknown): void => {
    const path = (message as { connectParams?: { path?: string } }).connectParams?.path;
    const colon = path?.lastIndexOf(':') ?? -1;
    if (path && colon > 0) this.markUp(transportKey(path.slice(0, colon), path.slice(colon + 1), 'https:'));
  };
}

/**
 * The proxy that plain http goes through on ProxyForward's one pool, or undefined where undici's agent is left to it:
 * no proxy, a NO_PROXY list (undici's agent reads it), a proxy with credentials or not over plain http.
 */
function forwardingProxy(proxy: string | undefined): string | undefined {
  const url = proxy ?? process.env.http_proxy ?? process.env.HTTP_PROXY;
  if (!url || process.env.no_proxy || process.env.NO_PROXY) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' && !u.username && !u.password ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

function parseTarget(href: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    throw new FetchFailure('bad-url', `${what} is not a valid URL: ${JSON.stringify(href)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchFailure('bad-url', `${what} has unsupported scheme ${url.protocol} (${href})`);
  }
  return url;
}

/** The hop in progress, as the deadline's probe sees it. */
interface Hop {
  key: string;
  https: boolean;
  since: number;
  /** When the latest request of this fetch was written to its connection. */
  sentAt?: number;
}

/** The redirects one fetch followed, and the target of the next hop, checked. */
class RedirectTrail {
  readonly hops: RedirectHop[] = [];
  seeOtherResource: string | undefined;
  private seen: Set<string> | undefined; // made on the first redirect: most fetches have none

  constructor(private readonly requestUrl: string, private readonly maxRedirects: number) {}

  /** The URL a redirect leads to from `current`, or a FetchFailure: an invalid or non-http target, a loop, one hop too many. */
  follow(current: URL, status: number, to: RedirectTarget): URL {
    if (!to.url) throw new FetchFailure('bad-url', `${current.href} redirected (${status}) to an invalid Location ${JSON.stringify(to.text)}`);
    const next = new URL(to.url);
    const hops = this.hops;
    hops.push({ url: current.href, status, target: next.href });
    if (status === 303 && this.seeOtherResource === undefined) this.seeOtherResource = current.href;
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new FetchFailure('bad-url', `${current.href} redirected to unsupported scheme ${next.protocol}`);
    }
    next.hash = '';
    this.seen ??= new Set([hops[0].url]);
    if (this.seen.has(next.href)) {
      throw new FetchFailure('redirect-loop', `redirect loop: ${hops.map((h) => h.url).join(' -> ')} -> ${next.href}`);
    }
    if (hops.length > this.maxRedirects) {
      throw new FetchFailure('too-many-redirects', `more than ${this.maxRedirects} redirects starting at ${this.requestUrl}`);
    }
    this.seen.add(next.href);
    return next;
  }
}

/** The undici-based Fetcher; one per set of options, holding its connections until closed. */
class HttpFetcher implements Fetcher {
  private readonly opts: HttpFetcherOptions;
  private readonly accept: string;
  private readonly isBlocked: (address: string) => boolean;
  private readonly lookup: LookupFn;
  private readonly limits: PhaseLimits;
  private readonly transport: Transport;
  private readonly signals = new SignalFanOut();

  constructor(options: Partial<HttpFetcherOptions> & Pick<FetchOptions, 'userAgent'>) {
    const opts: HttpFetcherOptions = (this.opts = { ...DEFAULT_FETCH_OPTIONS, ...options });
    this.accept = opts.accept ?? DEFAULT_ACCEPT;
    this.isBlocked = addressBlocker(opts);
    this.lookup = opts.lookup ?? systemLookup;
    this.limits = {
      connectMs: opts.connectTimeoutMs,
      tlsMs: opts.tlsTimeoutMs ?? opts.connectTimeoutMs,
      headersMs: opts.headersTimeoutMs,
      bodyIdleMs: opts.bodyIdleTimeoutMs ?? opts.headersTimeoutMs,
      totalMs: opts.totalTimeoutMs,
    };
    this.transport = new Transport(opts, this.limits, this.isBlocked, this.lookup);
  }

  async fetch(url: string, conditional?: ConditionalHeaders, callerSignal?: AbortSignal, overrides?: RequestOverrides): Promise<FetchOutcome> {
    if (callerSignal?.aborted) return { error: { code: 'aborted', message: 'aborted before the request was sent' } };
    const deadline = new Deadline(this.limits);
    const hop: Hop = { key: '', https: false, since: 0 };
    const transport = this.transport;
    const probe: TransportProbe = {
      get tls() { return hop.https; },
      transportUpSince: (since: number) => transport.upSince(hop.key, Math.max(since, hop.since)),
    };
    const phaseOf: PhaseOf = () => (hop.https && probe.transportUpSince(hop.since) !== undefined ? 'tls' : 'connect');
    const unwatch = callerSignal ? this.signals.watch(callerSignal, () => deadline.stop(new FetchFailure('aborted', 'aborted by the caller'))) : undefined;
    const sent = (outcome: FetchOutcome): FetchOutcome => (hop.sentAt !== undefined ? { ...outcome, sentAt: hop.sentAt } : outcome);
    try {
      return sent(await Promise.race([this.run(url, conditional, deadline, hop, probe, overrides), deadline.expired]));
    } catch (err) {
      return sent({ error: classifyNetworkError(err, this.opts, phaseOf) });
    } finally {
      deadline.clear();
      unwatch?.();
    }
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /**
   * Through a proxy the proxy resolves names, so the check happens here on our own resolution.
   * A name we cannot resolve is still sent (returns false: unchecked): a crawl machine without
   * DNS of its own behind a forward proxy is a real setup, and refusing would make it unusable.
   * The response says so (addressUnchecked) for the crawl to log; the proxy's own policy is then
   * what keeps it out of private networks.
   */
  private async checkProxiedTarget(url: URL): Promise<boolean> {
    const host = stripBrackets(url.hostname);
    if (isIP(host) !== 0) {
      if (this.isBlocked(host)) throw new BlockedAddressError(host, host);
      return true;
    }
    let found;
    try {
      found = await this.lookup(host);
    } catch {
      return false;
    }
    const bad = found.find((a) => this.isBlocked(a.address));
    if (bad) throw new BlockedAddressError(host, bad.address);
    return true;
  }

  private async run(requestUrl: string, conditional: ConditionalHeaders | undefined, deadline: Deadline, hop: Hop, probe: TransportProbe, overrides?: RequestOverrides): Promise<FetchOutcome> {
    const { opts, transport } = this;
    // Timed once the request is written (a microtask runs after undici's synchronous write): so the
    // next request, spaced from this time, cannot leave sooner after it than the delay.
    const onSent = () => queueMicrotask(() => void (hop.sentAt = Date.now()));
    const startedAt = new Date();
    const t0 = performance.now();
    let current = parseTarget(requestUrl, 'the URL');
    current.hash = ''; // never sent; keeps hop URLs comparable
    const trail = new RedirectTrail(requestUrl, opts.maxRedirects);
    let addressUnchecked = false;

    for (;;) {
      if (transport.proxied && !opts.allowPrivate && !(await this.checkProxiedTarget(current))) addressUnchecked = true;
      if (deadline.over) throw new FetchFailure('aborted', 'the deadline passed before the request was sent');
      const headerList = ['host', current.host, 'user-agent', opts.userAgent, 'accept', overrides?.accept ?? this.accept, 'accept-encoding', 'gzip, deflate, br'];
      if (conditional?.etag) headerList.push('if-none-match', conditional.etag);
      if (conditional?.lastModified) headerList.push('if-modified-since', conditional.lastModified);

      hop.key = transportKey(current.hostname, current.port, current.protocol);
      hop.https = current.protocol === 'https:';
      hop.since = Date.now();
      const res = await exchange(
        transport.dispatcher,
        { origin: current.origin, path: current.pathname + current.search, method: 'GET', headers: headerList },
        deadline,
        probe,
        opts.maxBodyBytes,
        onSent,
      );
      const { status, headers } = res;

      // maxRedirects 0: the redirect is the response (the crawl archives the hop and queues its target itself).
      const to = opts.maxRedirects > 0 ? redirectTarget(status, headers, current) : undefined;
      if (to) {
        current = trail.follow(current, status, to);
        continue;
      }

      const rawBody = res.chunks.length === 1 ? res.chunks[0] : Buffer.concat(res.chunks, res.size);
      const decoded = await decodeBody(rawBody, headerValue(headers, 'content-encoding'), opts.maxInflatedBytes, { cut: res.truncated });
      const { mediaType, charset } = parseContentType(headerValue(headers, 'content-type'));
      const finalUrl = current.href;
      const outcome: FetchOutcome = {
        response: {
          requestUrl,
          finalUrl,
          hops: trail.hops,
          ...(trail.seeOtherResource !== undefined ? { seeOther: { resource: trail.seeOtherResource, document: finalUrl } } : {}),
          status,
          statusText: res.statusText || STATUS_CODES[status] || '',
          httpVersion: '1.1',
          requestHeaders: toHeaders(headerList),
          headers,
          rawBody,
          body: decoded.body,
          truncated: res.truncated || decoded.truncated,
          mediaType,
          ...(charset !== undefined ? { charset } : {}),
          startedAt,
          durationMs: performance.now() - t0,
          notModified: status === 304 && Boolean(conditional?.etag || conditional?.lastModified),
          remoteAddress: transport.proxied ? undefined : transport.remoteAddress(hop.key),
          ...(addressUnchecked ? { addressUnchecked } : {}),
        },
      };
      if (decoded.error) outcome.error = { code: 'decode', message: `could not decode the body of ${finalUrl}: ${decoded.error}` };
      if (status === 429 || status === 503) {
        const now = Date.now();
        const waitMs = parseRetryAfterMs(headerValue(headers, 'retry-after'), now);
        if (waitMs !== undefined) {
          outcome.retryAfterMs = waitMs;
          outcome.retryAfter = parseRetryAfter(headerValue(headers, 'retry-after'), now);
        }
      }
      return outcome;
    }
  }
}

export function createHttpFetcher(options: Partial<HttpFetcherOptions> & Pick<FetchOptions, 'userAgent'>): Fetcher {
  return new HttpFetcher(options);
}
