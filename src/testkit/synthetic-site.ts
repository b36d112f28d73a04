import { startServer, type TestServer } from './server.ts';

/**
 * A generated Linked Data site of N Turtle pages on 127.0.0.1: page i links to a few others, so a
 * crawl from page 0 reaches every page. Used by the resume test and the throughput benchmark.
 */
export interface SyntheticSiteOptions {
  pages: number;
  linksPerPage?: number;
  /** Pad each page with literal text to about this many bytes. */
  bytesPerPage?: number;
  /** Delay each answer by this long (for tests that must interrupt a crawl). */
  latencyMs?: number;
}

export function syntheticPage(base: string, i: number, o: SyntheticSiteOptions): string {
  const links = o.linksPerPage ?? 4;
  let body = `@prefix ex: <http://example.org/vocab#> .\n<${base}/page/${i}> a ex:Page ;\n  ex:n ${i} ;\n`;
  for (let k = 1; k <= links; k++) {
    // The next page keeps the site connected; the others jump around it.
    const j = k === 1 ? (i + 1) % o.pages : (i * 7919 + k * 104729) % o.pages;
    body += `  ex:links <${base}/page/${j}> ;\n`;
  }
  const pad = Math.max(0, (o.bytesPerPage ?? 0) - body.length - 20);
  body += `  ex:text "${'lorem ipsum '.repeat(Math.ceil(pad / 12)).slice(0, pad)}" .\n`;
  return body;
}

export async function startSyntheticSite(o: SyntheticSiteOptions): Promise<TestServer & { seed: string }> {
  let base = '';
  const server = await startServer(async (_req, res, url) => {
    const m = /^\/page\/(\d+)$/.exec(url.pathname);
    if (!m || Number(m[1]) >= o.pages) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/turtle' });
    res.end(syntheticPage(base, Number(m[1]), o));
  }, { latencyMs: o.latencyMs });
  base = server.url;
  return Object.assign(server, { seed: `${server.url}/page/0` });
}
