import type { Dispatcher } from 'undici';

/** What a fetch needs of a dispatcher: to send, and to be let go. */
export type Sender = Pick<Dispatcher, 'dispatch' | 'destroy'>;

/**
 * Plain http through a forward proxy on one pool of connections to the proxy, each request in absolute form
 * (RFC 9112 3.2.2); everything else (https, tunnelled) goes to `other`. undici's ProxyAgent does the same per origin
 * through a wrapper dispatcher (its Http1ProxyWrapper) that reports no disconnect, so its Agent keeps one for every
 * origin the crawl ever asked, with its listeners: memory that grows with hosts (bench/frontier-hosts.bench.ts).
 * Here nothing is kept per origin.
 */
export class ProxyForward implements Sender {
  constructor(private readonly toProxy: Dispatcher, private readonly other: Dispatcher) {}

  dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = opts.origin === undefined ? '' : String(opts.origin);
    if (!origin.startsWith('http:')) return this.other.dispatch(opts, handler);
    const base = new URL(origin);
    const path = `${base.origin}${opts.path || '/'}`;
    return this.toProxy.dispatch({ ...opts, path, headers: withHost(opts.headers, base.host) }, refusing407(handler));
  }

  async destroy(): Promise<void> {
    await Promise.all([this.toProxy.destroy(), this.other.destroy()]);
  }
}

/** The request's headers with a Host header (the origin's), unless they name one. */
function withHost(headers: Dispatcher.DispatchOptions['headers'], host: string): Dispatcher.DispatchOptions['headers'] {
  if (Array.isArray(headers)) {
    const named = headers.some((h, i) => i % 2 === 0 && String(h).toLowerCase() === 'host');
    return named ? headers : [...headers, 'host', host];
  }
  if (headers && typeof headers === 'object' && !(Symbol.iterator in headers)) {
    const named = Object.keys(headers).some((k) => k.toLowerCase() === 'host');
    return named ? headers : { ...(headers as Record<string, string>), host };
  }
  return headers ?? { host };
}

/** A proxy's 407 is the proxy refusing the crawler, not the page's answer: an error, as undici's own wrapper makes it. */
function refusing407(handler: Dispatcher.DispatchHandler): Dispatcher.DispatchHandler {
  const onHeaders = handler.onHeaders;
  if (!onHeaders) return handler;
  const wrapped: Dispatcher.DispatchHandler = Object.create(handler);
  wrapped.onHeaders = (statusCode, ...rest) => {
    if (statusCode !== 407) return onHeaders.call(handler, statusCode, ...rest);
    handler.onError?.(new Error('Proxy Authentication Required (407)'));
    return false;
  };
  return wrapped;
}
