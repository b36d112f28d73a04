/**
 * A Linked Data site of many host names served by one HTTP server on 127.0.0.1: the Host header
 * decides the host. Each host has pages /p/0 … /p/N-1 in Turtle; page k links to pages 2k+1 and
 * 2k+2 of its host (every page is reachable from /p/0) and to page k of the next host and page 3k
 * of the host 7 further (URLs that the worker leasing that host must get through the shared store).
 * Every request is recorded with its User-Agent and start/end times, to check who fetched what when.
 * Shared by test/worker and bench/workers.bench.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface SiteRequest {
  host: string;
  path: string;
  userAgent: string;
  /** performance.now() when the request arrived and when its response ended (or the socket closed). */
  start: number;
  end: number;
}

export interface MultiHostSite {
  port: number;
  hosts: string[];
  /** Every page URL (normalised form, as the store keys them). */
  pages: string[];
  /** One seed per host: its /p/0. */
  seeds: string[];
  requests: SiteRequest[];
  /** `--resolve host:127.0.0.1` flags for every host. */
  resolveFlags(): string[];
  close(): Promise<void>;
}

export const SITE_DOMAIN = 'workers.test';

export async function startMultiHostSite(opts: { hosts: number; pagesPerHost: number; latencyMs: number }): Promise<MultiHostSite> {
  const hosts = Array.from({ length: opts.hosts }, (_, i) => `h${String(i).padStart(2, '0')}.${SITE_DOMAIN}`);
  const index = new Map(hosts.map((h, i) => [h, i]));
  const requests: SiteRequest[] = [];
  let port = 0;
  const page = (h: number, k: number) => `http://${hosts[((h % hosts.length) + hosts.length) % hosts.length]}:${port}/p/${k % opts.pagesPerHost}`;

  const server = http.createServer((req, res) => {
    const start = performance.now();
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const rec: SiteRequest = { host, path: req.url ?? '', userAgent: String(req.headers['user-agent'] ?? ''), start, end: start };
    requests.push(rec);
    let ended = false;
    const end = () => {
      if (!ended) rec.end = performance.now();
      ended = true;
    };
    res.on('finish', end);
    res.on('close', end);
    const h = index.get(host);
    const m = /^\/p\/(\d+)$/.exec(req.url ?? '');
    const k = m ? Number(m[1]) : -1;
    setTimeout(() => {
      if (h === undefined || k < 0 || k >= opts.pagesPerHost) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const links = [page(h, 2 * k + 1), page(h, 2 * k + 2)].filter((_, i) => 2 * k + 1 + i < opts.pagesPerHost);
      links.push(page(h + 1, k), page(h + 7, 3 * k));
      const body = `<${page(h, k)}> <http://www.w3.org/2000/01/rdf-schema#seeAlso> ${links.map((l) => `<${l}>`).join(', ')} ;\n  <http://www.w3.org/2000/01/rdf-schema#label> "page ${k} of ${host}" .\n`;
      res.writeHead(200, { 'content-type': 'text/turtle' }).end(body);
    }, opts.latencyMs);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  const pages: string[] = [];
  for (let h = 0; h < hosts.length; h++) for (let k = 0; k < opts.pagesPerHost; k++) pages.push(page(h, k));
  return {
    port,
    hosts,
    pages,
    seeds: hosts.map((_, h) => page(h, 0)),
    requests,
    resolveFlags: () => hosts.flatMap((h) => ['--resolve', `${h}:127.0.0.1`]),
    close: () => new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
