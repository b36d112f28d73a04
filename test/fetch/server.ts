/** The fetch tests' view of the testkit server: routes by path, requests counted per path. */
import type http from 'node:http';
import { startServer as startTestkitServer } from '../../src/testkit/server.ts';

export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface TestServer {
  port: number;
  /** http://<host>:<port><path>, host defaulting to 127.0.0.1. */
  url(path: string, host?: string): string;
  /** Requests seen per path (path + query). */
  hits: Map<string, number>;
  /** Headers of the latest request per path. */
  lastHeaders: Map<string, http.IncomingHttpHeaders>;
  close(): Promise<void>;
}

export async function startServer(routes: Record<string, Route>): Promise<TestServer> {
  const hits = new Map<string, number>();
  const lastHeaders = new Map<string, http.IncomingHttpHeaders>();
  const server = await startTestkitServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    lastHeaders.set(path, req.headers);
    const route = routes[path] ?? routes[path.replace(/\?.*$/, '')];
    if (route) return route(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  return {
    port: server.port,
    url: (path, host = '127.0.0.1') => `http://${host}:${server.port}${path}`,
    hits,
    lastHeaders,
    close: () => server.close(),
  };
}

export { closedPort } from '../../src/testkit/server.ts';
