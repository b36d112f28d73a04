import fs from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from './server.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.htm': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript',
  '.png': 'image/png', '.gif': 'image/gif', '.svg': 'image/svg+xml', '.ttl': 'text/turtle', '.nt': 'application/n-triples',
  '.rdf': 'application/rdf+xml', '.jsonld': 'application/ld+json', '.txt': 'text/plain',
};

/**
 * Serves a directory of files on 127.0.0.1 (a real website for crawls and benchmarks). `latencyMs`
 * delays each answer by host name (virtual hosts resolved to 127.0.0.1 that stand for remote servers).
 */
export async function startStaticSite(root: string, opts: { latencyMs?: (host: string) => number } = {}): Promise<TestServer> {
  const base = path.resolve(root);
  return startServer(async (_req, res, url) => {
    let rel = decodeURIComponent(url.pathname);
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.join(base, rel);
    if (!file.startsWith(base + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('not found');
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  }, { latencyMs: opts.latencyMs && ((url) => opts.latencyMs!(url.hostname)) });
}
