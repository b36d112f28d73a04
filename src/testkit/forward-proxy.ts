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
    const upstream = http.request({ host: '127.0.0.1', port, method: req.method, path: target.pathname + target.search, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, { ...up.headers, via: '1.1 test-proxy' });
      up.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end('proxy: upstream failed');
      else res.destroy();
    });
    req.pipe(upstream);
  });
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
        server.close(() => resolve());
      }),
  };
}
