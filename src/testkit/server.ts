import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the test server saw: tests assert on politeness and conditional GETs through these. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  time: number;
  host: string;
}

export type Route = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => unknown;

export interface TestServer {
  url: string;
  port: number;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export interface ServerOptions {
  port?: number;
  /** Each answer this long after its request (ms), or per request: a network's round trip, a slow remote host. */
  latencyMs?: number | ((url: URL) => number);
}

/** An HTTP server on 127.0.0.1 with a random port that records every request it receives. */
export async function startServer(route: Route, opts: ServerOptions = {}): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, headers: req.headers, time: Date.now(), host: url.host });
    const wait = typeof opts.latencyMs === 'function' ? opts.latencyMs(url) : (opts.latencyMs ?? 0);
    const answered = wait > 0 ? new Promise((r) => setTimeout(r, wait)).then(() => route(req, res, url)) : Promise.resolve(route(req, res, url));
    answered.catch((e) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(e));
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves a fixed map of path → { type, body }; 404 elsewhere. */
export function staticRoutes(files: Record<string, { type: string; body: string | Buffer; status?: number; headers?: Record<string, string> }>): Route {
  return (_req, res, url) => {
    const f = files[url.pathname];
    if (!f) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(f.status ?? 200, { 'content-type': f.type, ...f.headers });
    res.end(f.body);
  };
}

/** A port with nothing listening on it (bound, then released): connections to it are refused. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
