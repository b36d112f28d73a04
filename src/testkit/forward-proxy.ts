import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A forward proxy on 127.0.0.1, as archives put in front of a crawler: plain http comes as
 * absolute-URI requests and is relayed; https comes as CONNECT and is tunnelled. Every name is
 * resolved by the proxy's own table (`route`), never by DNS, so a crawl through it reaches only the
 * test's servers: a name the table lacks gets 502, like a proxy that cannot resolve it. The default
 * table sends every name to 127.0.0.1 at the port the URL names. The one proxy of the tests, the
 * fault kit and the acceptance crawl.
 */
export interface ForwardProxy {
  url: string;
  port: number;
  /** Absolute URIs relayed and `CONNECT host:port` targets, in order. */
  seen: string[];
  /** How often each of those was asked for. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** Where the proxy sends a name: a port on 127.0.0.1, or undefined (502). */
export type ProxyRoute = (hostname: string, port: number) => number | undefined;

export interface ForwardProxyOptions {
  route?: ProxyRoute;
  /** Accept CONNECT and never answer it (a proxy that hangs). */
  silentConnect?: boolean;
}

/**
 * Headers of one connection, not of the message (RFC 9110 7.6.1): a proxy answers them for its own
 * hop and never passes them on. Passing the upstream's `Keep-Alive: timeout=5` on told the crawler
 * how long the *upstream* server keeps idle connections, not the proxy.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  // Connection may name more hop-by-hop headers of its own.
  const named = new Set(String(headers.connection ?? '').toLowerCase().split(',').map((h) => h.trim()).filter(Boolean));
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !HOP_BY_HOP.has(k) && !named.has(k)));
}

/**
 * Idle connections from clients are kept this long, while the proxy tells them it keeps them
 * `ADVERTISED_KEEP_ALIVE_S`. A server that closes an idle connection exactly when it says races a
 * client that sends on it just before: the request meets the close and the client sees a reset. A
 * loaded machine widens that window by seconds (a scale run's crawler and proxy sharing 2 busy
 * cores most likely lost its 14 requests so: bench/proxy-keepalive.ts); the margin closes it.
 */
const CLIENT_KEEP_ALIVE_MS = 65_000;
const ADVERTISED_KEEP_ALIVE_S = 5;
/** Idle connections to upstream servers are dropped before the upstream's own 5 s (Node's default) would close them under us. */
const UPSTREAM_IDLE_MS = 2_000;

export async function startForwardProxy(o: ForwardProxyOptions | ProxyRoute = {}): Promise<ForwardProxy> {
  const opts = typeof o === 'function' ? { route: o } : o;
  const route: ProxyRoute = opts.route ?? ((_name, port) => port);
  const seen: string[] = [];
  const hits = new Map<string, number>();
  const note = (what: string) => {
    seen.push(what);
    hits.set(what, (hits.get(what) ?? 0) + 1);
  };
  const sockets = new Set<net.Socket>();
  const agent = new http.Agent({ keepAlive: true, timeout: UPSTREAM_IDLE_MS });
  const server = http.createServer((req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      note(req.url ?? '');
      res.writeHead(400).end('proxy: absolute URI expected');
      return;
    }
    note(target.href);
    const port = route(target.hostname, Number(target.port || 80));
    if (port === undefined) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: cannot resolve ${target.hostname}`);
      return;
    }
    const headers = endToEnd(req.headers);
    const send = (retry: boolean): void => {
      const upstream = http.request({ host: '127.0.0.1', port, method: req.method, path: target.pathname + target.search, headers, agent }, (up) => {
        res.writeHead(up.statusCode ?? 502, { ...endToEnd(up.headers), via: '1.1 test-proxy', ...(res.shouldKeepAlive ? { 'keep-alive': `timeout=${ADVERTISED_KEEP_ALIVE_S}` } : {}) });
        up.pipe(res);
        // A client that went away (its deadline, a crawl stopping) leaves the upstream answer unread: end it, or its connection is held.
        res.on('close', () => {
          if (!up.complete) up.destroy();
        });
      });
      upstream.on('error', () => {
        // The upstream closed a kept-alive connection as this request went out on it: nothing was
        // answered, so a request without a body is sent again on a new connection (what Node's docs advise).
        if (retry && upstream.reusedSocket && !res.headersSent && (req.method === 'GET' || req.method === 'HEAD')) return send(false);
        if (!res.headersSent) res.writeHead(502).end('proxy: upstream failed');
        else res.destroy();
      });
      if (req.method === 'GET' || req.method === 'HEAD') upstream.end();
      else req.pipe(upstream);
    };
    send(true);
  });
  server.keepAliveTimeout = CLIENT_KEEP_ALIVE_MS;
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    note(`CONNECT ${req.url ?? ''}`);
    client.on('error', () => undefined);
    if (opts.silentConnect) return;
    const at = (req.url ?? '').lastIndexOf(':');
    const hostname = (req.url ?? '').slice(0, at).replace(/^\[|\]$/g, '');
    const port = route(hostname, Number((req.url ?? '').slice(at + 1) || 443));
    if (port === undefined) {
      client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    const upstream = net.connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
