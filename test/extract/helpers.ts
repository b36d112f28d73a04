import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Quad } from '@rdfjs/types';
import { extract } from '../../src/extract/registry.ts';
import type { ExtractContext, ExtractResult } from '../../src/extract/types.ts';

export function extractText(mediaType: string, body: string | Buffer, ctx: Partial<ExtractContext> = {}, url = 'http://example.org/doc'): Promise<ExtractResult> {
  return extract(
    { url, mediaType, body: typeof body === 'string' ? Buffer.from(body) : body, headers: {} },
    { maxQuads: 100_000, ...ctx },
  );
}

/** "s p o" lines (graph appended when not the default graph), sorted, for readable assertions. */
export function lines(quads: Quad[]): string[] {
  return quads
    .map((q) => [q.subject.value, q.predicate.value, q.object.value, q.graph.termType === 'DefaultGraph' ? '' : q.graph.value].join(' ').trim())
    .sort();
}

export function errors(result: ExtractResult) {
  return result.diagnostics.filter((d) => d.level === 'error');
}

/** A real HTTP server on 127.0.0.1 that counts requests per path. */
export async function countingServer(routes: Record<string, { type: string; body: string }>) {
  const hits = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes[path];
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': route.type }).end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    hits,
    total: () => [...hits.values()].reduce((a, b) => a + b, 0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
