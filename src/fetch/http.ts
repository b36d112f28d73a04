/** The undici-based Fetcher: manual redirects, address safety at connect time, capped and decoded bodies. */
import diagnostics from 'node:diagnostics_channel';
import { STATUS_CODES } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { Agent, EnvHttpProxyAgent, Pool, buildConnector, type Dispatcher } from 'undici';
import { DEFAULT_ACCEPT, buildUserAgent } from './accept.ts';
import { BlockedAddressError, addressBlocker, checkedNodeLookup, systemLookup, type LookupFn } from './address.ts';
import { decodeBody } from './decode.ts';
import { Deadline, DeadlineExceeded, type PhaseLimits, type TransportProbe } from './deadline.ts';
import { parseRetryAfter, parseRetryAfterMs } from './retry-after.ts';
import { parseContentType } from '../util/content-type.ts';
import { headerValue } from '../util/headers.ts';
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

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
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

/** Header bytes arrive as latin1; a Location with UTF-8 bytes (a common server bug) is read as UTF-8. */
function locationText(value: string): string {
  if (!/[^\x00-\x7f]/.test(value)) return value;
  const utf8 = Buffer.from(value, 'latin1').toString('utf8');
  return utf8.includes('\ufffd') ? value : utf8;
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
function exchange(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, deadline: Deadline, probe: TransportProbe, bodyLimit: number, onSent: () => void): Promise<Exchange> {
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
        if (REDIRECT_STATUSES.has(statusCode) && headerValue(result.headers, 'location') !== undefined) {
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

export function createHttpFetcher(options: Partial<HttpFetcherOptions> & Pick<FetchOptions, 'userAgent'>): Fetcher {
  const opts: HttpFetcherOptions = { ...DEFAULT_FETCH_OPTIONS, ...options };
  const accept = opts.accept ?? DEFAULT_ACCEPT;
  const isBlocked = addressBlocker(opts);
  const lookup = opts.lookup ?? systemLookup;
  const limits: PhaseLimits = {
    connectMs: opts.connectTimeoutMs,
    tlsMs: opts.tlsTimeoutMs ?? opts.connectTimeoutMs,
    headersMs: opts.headersTimeoutMs,
    bodyIdleMs: opts.bodyIdleTimeoutMs ?? opts.headersTimeoutMs,
    totalMs: opts.totalTimeoutMs,
  };
  /** host:port → address of the latest connection made there (the response does not carry its socket). */
  const remoteAddresses = new Map<string, string>();
  /** host:port → when a transport (TCP, or a proxy's tunnel) there last came up: tells a TLS stall from a connect stall. */
  const transportUp = new Map<string, number>();
  const markUp = (key: string) => {
    if (transportUp.size > MAX_TRACKED_ORIGINS) transportUp.clear();
    transportUp.set(key, Date.now());
  };
  const signals = new SignalFanOut();

  // The connector's own timeout only tidies up a socket nobody waits for any more; the request's
  // Deadline is what ends the fetch.
  const baseConnect = buildConnector({
    timeout: limits.connectMs + limits.tlsMs,
    lookup: checkedNodeLookup(lookup, isBlocked),
  } as buildConnector.BuildOptions);
  // net.connect skips `lookup` for IP literals, so those are checked here before any packet is sent.
  const connect: buildConnector.connector = (target, callback) => {
    const host = stripBrackets(target.hostname);
    if (isIP(host) !== 0 && isBlocked(host)) {
      callback(new BlockedAddressError(host, host), null);
      return;
    }
    const key = transportKey(target.hostname, target.port, target.protocol);
    const socket = baseConnect(target, (err, sock) => {
      if (remoteAddresses.size > MAX_TRACKED_ORIGINS) remoteAddresses.clear();
      if (sock?.remoteAddress) remoteAddresses.set(key, sock.remoteAddress);
      callback(err as Error, sock as never);
    }) as unknown as Socket | undefined;
    // A TLS socket says 'connect' when TCP is up and 'secureConnect' after the handshake.
    if (target.protocol === 'https:') socket?.once?.('connect', () => markUp(key));
  };

  const agentOptions = {
    connect,
    connections: opts.connectionsPerOrigin,
    // Backstops only: the Deadline fires first and aborts the request.
    headersTimeout: 2 * limits.headersMs,
    bodyTimeout: 2 * limits.bodyIdleMs,
  };
  const proxied = Boolean(opts.proxy) || hasProxyEnv();
  // Plain http through a proxy: undici wraps each origin in a dispatcher with a pool of its own to the proxy, and
  // keeps both for good (the wrapper reports no disconnect): 16 KB of queue a pool, 1.6 GB at 100,000 hosts. One pool
  // to each proxy serves them all, as one connection to a proxy serves any origin.
  const proxyPools = new Map<string, Pool>();
  const factory = (origin: string | URL, o: Pool.Options): Dispatcher => {
    const key = String(origin);
    const proxyUrl = opts.proxy ?? process.env.http_proxy ?? process.env.HTTP_PROXY;
    if (!proxyUrl || key !== new URL(proxyUrl).href) return new Pool(origin, o);
    let pool = proxyPools.get(key);
    if (!pool || pool.closed || pool.destroyed) proxyPools.set(key, (pool = new Pool(origin, o)));
    return pool;
  };
  const dispatcher: Dispatcher = proxied
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
  // A CONNECT tunnel coming up is where, through a proxy, connecting ends and the TLS handshake begins.
  const onTunnel = (message: unknown) => {
    const path = (message as { connectParams?: { path?: string } }).connectParams?.path;
    const colon = path?.lastIndexOf(':') ?? -1;
    if (path && colon > 0) markUp(transportKey(path.slice(0, colon), path.slice(colon + 1), 'https:'));
  };
  if (proxied) diagnostics.subscribe('undici:proxy:connected', onTunnel);

  const fixedHeaders = (acceptValue: string) => ['user-agent', opts.userAgent, 'accept', acceptValue, 'accept-encoding', 'gzip, deflate, br'];

  /**
   * Through a proxy the proxy resolves names, so the check happens here on our own resolution.
   * A name we cannot resolve is still sent (returns false: unchecked): a crawl machine without
   * DNS of its own behind a forward proxy is a real setup, and refusing would make it unusable.
   * The response says so (addressUnchecked) for the crawl to log; the proxy's own policy is then
   * what keeps it out of private networks.
   */
  async function checkProxiedTarget(url: URL): Promise<boolean> {
    const host = stripBrackets(url.hostname);
    if (isIP(host) !== 0) {
      if (isBlocked(host)) throw new BlockedAddressError(host, host);
      return true;
    }
    let found;
    try {
      found = await lookup(host);
    } catch {
      return false;
    }
    const bad = found.find((a) => isBlocked(a.address));
    if (bad) throw new BlockedAddressError(host, bad.address);
    return true;
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

  async function run(requestUrl: string, conditional: ConditionalHeaders | undefined, deadline: Deadline, hop: Hop, probe: TransportProbe, overrides?: RequestOverrides): Promise<FetchOutcome> {
    // Timed once the request is written (a microtask runs after undici's synchronous write): so the
    // next request, spaced from this time, cannot leave sooner after it than the delay.
    const onSent = () => queueMicrotask(() => void (hop.sentAt = Date.now()));
    const startedAt = new Date();
    const t0 = performance.now();
    let current = parseTarget(requestUrl, 'the URL');
    current.hash = ''; // never sent; keeps hop URLs comparable
    const hops: RedirectHop[] = [];
    let seen: Set<string> | undefined; // made on the first redirect: most fetches have none
    let seeOtherResource: string | undefined;
    let addressUnchecked = false;

    for (;;) {
      if (proxied && !opts.allowPrivate && !(await checkProxiedTarget(current))) addressUnchecked = true;
      if (deadline.over) throw new FetchFailure('aborted', 'the deadline passed before the request was sent');
      const headerList = ['host', current.host, ...fixedHeaders(overrides?.accept ?? accept)];
      if (conditional?.etag) headerList.push('if-none-match', conditional.etag);
      if (conditional?.lastModified) headerList.push('if-modified-since', conditional.lastModified);

      hop.key = transportKey(current.hostname, current.port, current.protocol);
      hop.https = current.protocol === 'https:';
      hop.since = Date.now();
      const res = await exchange(
        dispatcher,
        { origin: current.origin, path: current.pathname + current.search, method: 'GET', headers: headerList },
        deadline,
        probe,
        opts.maxBodyBytes,
        onSent,
      );
      const { status, headers } = res;

      // maxRedirects 0: the redirect is the response (the crawl archives the hop and queues its target itself).
      const location = REDIRECT_STATUSES.has(status) && opts.maxRedirects > 0 ? headerValue(headers, 'location') : undefined;
      if (location !== undefined) {
        const text = locationText(location);
        let next: URL;
        try {
          next = new URL(text, current);
        } catch {
          throw new FetchFailure('bad-url', `${current.href} redirected (${status}) to an invalid Location ${JSON.stringify(text)}`);
        }
        hops.push({ url: current.href, status, location: text });
        if (status === 303 && seeOtherResource === undefined) seeOtherResource = current.href;
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          throw new FetchFailure('bad-url', `${current.href} redirected to unsupported scheme ${next.protocol}`);
        }
        next.hash = '';
        seen ??= new Set([hops[0].url]);
        if (seen.has(next.href)) {
          throw new FetchFailure('redirect-loop', `redirect loop: ${hops.map((h) => h.url).join(' -> ')} -> ${next.href}`);
        }
        if (hops.length > opts.maxRedirects) {
          throw new FetchFailure('too-many-redirects', `more than ${opts.maxRedirects} redirects starting at ${requestUrl}`);
        }
        seen.add(next.href);
        current = next;
        continue;
      }

      const rawBody = res.chunks.length === 1 ? res.chunks[0] : Buffer.concat(res.chunks, res.size);
      const decoded = await decodeBody(rawBody, headerValue(headers, 'content-encoding'), opts.maxInflatedBytes);
      const { mediaType, charset } = parseContentType(headerValue(headers, 'content-type'));
      const finalUrl = current.href;
      const outcome: FetchOutcome = {
        response: {
          requestUrl,
          finalUrl,
          hops,
          ...(seeOtherResource !== undefined ? { seeOther: { resource: seeOtherResource, document: finalUrl } } : {}),
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
          notModified: status === 304,
          remoteAddress: proxied ? undefined : remoteAddresses.get(hop.key),
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

  return {
    async fetch(url, conditional, callerSignal, overrides) {
      if (callerSignal?.aborted) return { error: { code: 'aborted', message: 'aborted before the request was sent' } };
      const deadline = new Deadline(limits);
      const hop: Hop = { key: '', https: false, since: 0 };
      const probe: TransportProbe = {
        get tls() { return hop.https; },
        transportUpSince(since: number) {
          const at = transportUp.get(hop.key);
          return at !== undefined && at >= Math.max(since, hop.since) ? at : undefined;
        },
      };
      const phaseOf: PhaseOf = () => (hop.https && probe.transportUpSince(hop.since) !== undefined ? 'tls' : 'connect');
      const unwatch = callerSignal ? signals.watch(callerSignal, () => deadline.stop(new FetchFailure('aborted', 'aborted by the caller'))) : undefined;
      const sent = (outcome: FetchOutcome): FetchOutcome => (hop.sentAt !== undefined ? { ...outcome, sentAt: hop.sentAt } : outcome);
      try {
        return sent(await Promise.race([run(url, conditional, deadline, hop, probe, overrides), deadline.expired]));
      } catch (err) {
        return sent({ error: classifyNetworkError(err, opts, phaseOf) });
      } finally {
        deadline.clear();
        unwatch?.();
      }
    },
    async close() {
      if (proxied) diagnostics.unsubscribe('undici:proxy:connected', onTunnel);
      // Every fetch has settled by now; what undici still holds is work a deadline abandoned (a CONNECT
      // nobody answers, say), which a graceful close() would wait for.
      await dispatcher.destroy();
    },
  };
}
