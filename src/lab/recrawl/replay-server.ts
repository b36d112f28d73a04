import { startServer, type TestServer } from '../../testkit/server.ts';
import type { HistoryRecord } from './histories.ts';

/**
 * Serves documents whose content changes at the times of a change history, under a virtual clock
 * the caller moves: at time t, document d is in version "number of its changes ≤ t". Real re-crawl
 * cycles run against it and replay years of history in seconds.
 */
export interface ReplayServer extends TestServer {
  /** The virtual time (epoch ms) the server answers for. */
  clock: number;
  urlOf(id: string): string;
}

export interface ReplayOptions {
  /**
   * `honest` (default): each sitemap lastmod is the document's last change. `lying`: every lastmod is
   * the time the sitemap is read, as sitemaps generated on request often say (docs/notifications.md).
   */
  sitemap?: 'honest' | 'lying';
}

export async function startReplayServer(records: HistoryRecord[], o: ReplayOptions = {}): Promise<ReplayServer> {
  const docs = new Map(records.map((r) => [r.id, { created: Date.parse(String(r.created)), end: Date.parse(String(r.end)), changes: r.changes.map((c) => Date.parse(String(c))) }]));
  const state = { clock: 0 };
  const server: TestServer = await startServer((_req, res, url) => {
    if (url.pathname === '/robots.txt') {
      res.writeHead(404);
      return res.end();
    }
    if (url.pathname === '/sitemap.xml') {
      // What a site that keeps its sitemap honest says: every live document and when it last changed.
      const entries = [...docs].filter(([, d]) => state.clock >= d.created && state.clock <= d.end).map(([id, d]) => {
        const last = o.sitemap === 'lying' ? state.clock : (d.changes.filter((c) => c <= state.clock).at(-1) ?? d.created);
        return `<url><loc>${server.url}/doc/${encodeURIComponent(id)}</loc><lastmod>${new Date(last).toISOString()}</lastmod></url>`;
      });
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries.join('')}</urlset>\n`);
    }
    const id = decodeURIComponent(url.pathname.replace(/^\/doc\//, ''));
    const d = docs.get(id);
    if (!d || state.clock < d.created || state.clock > d.end) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('no such document at this time');
    }
    let version = 0;
    while (version < d.changes.length && d.changes[version] <= state.clock) version++;
    res.writeHead(200, { 'content-type': 'text/turtle' });
    res.end(`<${url.origin}${url.pathname}> <http://example.org/version> ${version} .\n`);
  });
  // defineProperty, not Object.assign: assign would copy the clock's value, not its accessors.
  Object.defineProperty(server, 'clock', { get: () => state.clock, set: (t: number) => (state.clock = t), enumerable: true });
  return Object.assign(server, { urlOf: (id: string) => `${server.url}/doc/${encodeURIComponent(id)}` }) as ReplayServer;
}
