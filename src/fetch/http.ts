/** The undici-based Fetcher: manual redirects, address safety at connect time, capped and decoded bodies. */
import { STATUS_CODES } from 'node:http';
import { isIP } from 'node:net';
import { Agent, EnvHttpProxyAgent, buildConnector, type Dispatcher } from 'undici';
import { DEFAULT_ACCEPT, buildUserAgent } from './accept.ts';
import { BlockedAddressError, addressBlocker, checkedNodeLookup, systemLookup, type LookupFn } from './address.ts';
import { decodeBody } from './decode.ts';
import { parseContentType } from '../util/content-type.ts';
import type {
  ConditionalHeaders,
  FetchError,
  FetchErrorCode,
  FetchOptions,
  FetchOutcome,
  Fetcher,
  Header,
  RedirectHop,
} from './types.ts';

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
const TOTAL_TIMEOUT = Symbol('total timeout');

class FetchFailure extends Error {
  constructor(readonly code: FetchErrorCode, message: string) {
    super(message);
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

function headerValue(headers: Header[], lowerName: string): string | undefined {
  for (const [name, value] of headers) if (name.length === lowerName.length && name.toLowerCase() === lowerName) return value;
  return undefined;
}

/** Header bytes arrive as latin1; a Location with UTF-8 bytes (a common server bug) is read as UTF-8. */
function locationText(value: string): string {
  if (!/[^\x00-\x7f]/.test(value)) return value;
  const utf8 = Buffer.from(value, 'latin1').toString('utf8');
  return utf8.includes('\ufffd') ? value : utf8;
}

/** Retry-After as delay-seconds or an HTTP-date (RFC 9110 10.2.3); undefined when unparseable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): Date | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return new Date(now + Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : new Date(Math.max(at, now));
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

function classifyNetworkError(err: unknown, opts: FetchOptions): FetchError {
  if (err instanceof FetchFailure) return { code: err.code, message: err.message };
  const code = errorCode(err);
  const text = describe(err);
  switch (code) {
    case 'EBLOCKEDADDRESS':
      return { code: 'blocked-address', message: text };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return { code: 'dns', message: `host name did not resolve (${text})` };
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return { code: 'timeout', message: `connect timeout after ${opts.connectTimeoutMs} ms (${text})` };
    case 'UND_ERR_HEADERS_TIMEOUT':
      return { code: 'timeout', message: `no response headers within ${opts.headersTimeoutMs} ms` };
    case 'UND_ERR_BODY_TIMEOUT':
      return { code: 'timeout', message: `body stalled for ${opts.headersTimeoutMs} ms` };
    case 'ECONNREFUSED':
      return { code: 'connect', message: `connection refused (${text})` };
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return { code: 'connect', message: `connection reset or closed by the server (${text})` };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return { code: 'connect', message: `host unreachable (${text})` };
    case 'UND_ERR_INVALID_ARG':
      return { code: 'bad-url', message: text };
    default:
      return { code: 'protocol', message: text };
  }
}

export function createHttpFetcher(options: Partial<HttpFetcherOptions> & Pick<FetchOptions, 'userAgent'>): Fetcher {
  const opts: HttpFetcherOptions = { ...DEFAULT_FETCH_OPTIONS, ...options };
  const accept = opts.accept ?? DEFAULT_ACCEPT;
  const isBlocked = addressBlocker(opts);
  const lookup = opts.lookup ?? systemLookup;
  /** host:port → address of the latest connection made there (the response does not carry its socket). */
  const remoteAddresses = new Map<string, string>();

  const baseConnect = buildConnector({
    timeout: opts.connectTimeoutMs,
    lookup: checkedNodeLookup(lookup, isBlocked),
  } as buildConnector.BuildOptions);
  // net.connect skips `lookup` for IP literals, so those are checked here before any packet is sent.
  const connect: buildConnector.connector = (target, callback) => {
    const host = stripBrackets(target.hostname);
    if (isIP(host) !== 0 && isBlocked(host)) {
      callback(new BlockedAddressError(host, host), null);
      return;
    }
    baseConnect(target, (err, socket) => {
      if (remoteAddresses.size > 10_000) remoteAddresses.clear(); // bounded on a crawl of many hosts
      if (socket?.remoteAddress) remoteAddresses.set(`${host}:${target.port}`, socket.remoteAddress);
      callback(err as Error, socket as never);
    });
  };

  const agentOptions = {
    connect,
    connections: opts.connectionsPerOrigin,
    headersTimeout: opts.headersTimeoutMs,
    // Idle time between body chunks; the total timeout bounds a trickle that stays under it.
    bodyTimeout: opts.headersTimeoutMs,
  };
  const proxied = Boolean(opts.proxy) || hasProxyEnv();
  const dispatcher: Dispatcher = proxied
    ? new EnvHttpProxyAgent({
        ...agentOptions,
        ...(opts.proxy ? { httpProxy: opts.proxy, httpsProxy: opts.proxy } : {}),
        // Plain http goes as an absolute-URI request (what archiving proxies expect); https tunnels.
        proxyTunnel: false,
      } as ConstructorParameters<typeof EnvHttpProxyAgent>[0])
    : new Agent(agentOptions);

  const fixedHeaders = ['user-agent', opts.userAgent, 'accept', accept, 'accept-encoding', 'gzip, deflate, br'];

  /** Through a proxy the proxy resolves names, so the check happens here on our own resolution. */
  async function checkProxiedTarget(url: URL): Promise<void> {
    const host = stripBrackets(url.hostname);
    if (isIP(host) !== 0) {
      if (isBlocked(host)) throw new BlockedAddressError(host, host);
      return;
    }
    let found;
    try {
      found = await lookup(host);
    } catch {
      return; // the proxy may know names we cannot resolve
    }
    const bad = found.find((a) => isBlocked(a.address));
    if (bad) throw new BlockedAddressError(host, bad.address);
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

  async function run(requestUrl: string, conditional: ConditionalHeaders | undefined, signal: AbortSignal): Promise<FetchOutcome> {
    const startedAt = new Date();
    const t0 = performance.now();
    let current = parseTarget(requestUrl, 'the URL');
    current.hash = ''; // never sent; keeps hop URLs comparable
    const hops: RedirectHop[] = [];
    let seen: Set<string> | undefined; // made on the first redirect: most fetches have none
    let seeOtherResource: string | undefined;

    for (;;) {
      if (proxied && !opts.allowPrivate) await checkProxiedTarget(current);
      const headerList = ['host', current.host, ...fixedHeaders];
      if (conditional?.etag) headerList.push('if-none-match', conditional.etag);
      if (conditional?.lastModified) headerList.push('if-modified-since', conditional.lastModified);

      const res = await dispatcher.request({
        origin: current.origin,
        path: current.pathname + current.search,
        method: 'GET',
        headers: headerList,
        signal,
        responseHeaders: 'raw',
      });
      const status = res.statusCode;
      const headers = toHeaders(res.headers as unknown as string[]);

      // maxRedirects 0: the redirect is the response (the crawl archives the hop and queues its target itself).
      const location = REDIRECT_STATUSES.has(status) && opts.maxRedirects > 0 ? headerValue(headers, 'location') : undefined;
      if (location !== undefined) {
        await res.body.dump({ limit: REDIRECT_BODY_LIMIT }).catch(() => undefined);
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

      const max = opts.maxBodyBytes;
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (size + chunk.length > max) {
          chunks.push(chunk.subarray(0, max - size));
          size = max;
          truncated = true;
          break; // leaving the loop destroys the body stream: the rest is never read
        }
        chunks.push(chunk);
        size += chunk.length;
      }
      const rawBody = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
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
          truncated: truncated || decoded.truncated,
          mediaType,
          ...(charset !== undefined ? { charset } : {}),
          startedAt,
          durationMs: performance.now() - t0,
          notModified: status === 304,
          remoteAddress: proxied ? undefined : remoteAddresses.get(`${stripBrackets(current.hostname)}:${current.port || (current.protocol === 'https:' ? 443 : 80)}`),
        },
      };
      if (decoded.error) outcome.error = { code: 'decode', message: `could not decode the body of ${finalUrl}: ${decoded.error}` };
      if (status === 429 || status === 503) {
        const retryAfter = parseRetryAfter(headerValue(headers, 'retry-after'));
        if (retryAfter) outcome.retryAfter = retryAfter;
      }
      return outcome;
    }
  }

  return {
    async fetch(url, conditional, callerSignal) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(TOTAL_TIMEOUT), opts.totalTimeoutMs);
      const onCallerAbort = () => controller.abort(callerSignal?.reason);
      if (callerSignal) {
        if (callerSignal.aborted) controller.abort(callerSignal.reason);
        else callerSignal.addEventListener('abort', onCallerAbort, { once: true });
      }
      try {
        if (controller.signal.aborted) return { error: { code: 'aborted', message: 'aborted before the request was sent' } };
        return await run(url, conditional, controller.signal);
      } catch (err) {
        if (controller.signal.aborted) {
          return controller.signal.reason === TOTAL_TIMEOUT
            ? { error: { code: 'timeout', message: `no complete response within ${opts.totalTimeoutMs} ms (total timeout)` } }
            : { error: { code: 'aborted', message: 'aborted by the caller' } };
        }
        return { error: classifyNetworkError(err, opts) };
      } finally {
        clearTimeout(timer);
        callerSignal?.removeEventListener('abort', onCallerAbort);
      }
    },
    async close() {
      await dispatcher.close();
    },
  };
}
