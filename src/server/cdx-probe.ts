/**
 * The reads a server makes for `/cdx` and for the dashboard's overview, run where they can be measured: in a
 * process of their own, so that a test can cap its heap (test/server/cdx-bounded.test.ts) and a bench can
 * read its peak RSS (bench/scale.bench.ts). The CDX route on a real 127.0.0.1 server over the archive in DIR,
 * a domain query for `lod.test` read by a client as it streams (lines counted, not kept), page after page of
 * LIMIT lines following X-Resume-Key to the end; then the reads behind the dashboard's overview.
 *
 * Usage: node bin/run-ts.mjs src/server/cdx-probe.ts DIR LIMIT
 * Prints {status, lines, pages, resumeKey, entries} as one JSON line (`resumeKey`: the last page's, null).
 */
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { openStore } from '../store/index.ts';
import { registerCdxRoute } from './cdx-route.ts';

export interface CdxProbeResult {
  /** The first status other than 200, else 200. */
  status: number;
  lines: number;
  pages: number;
  resumeKey: string | null;
  /** Log entries, as the dashboard counts them. */
  entries: number;
}

export async function cdxProbe(dir: string, limit: number): Promise<CdxProbeResult> {
  const store = await openStore(dir, undefined, { readonly: true });
  await store.init();
  const app = Fastify();
  registerCdxRoute(app, { store, publicUrl: () => 'http://127.0.0.1' } as unknown as Parameters<typeof registerCdxRoute>[1]);
  try {
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const r: CdxProbeResult = { status: 200, lines: 0, pages: 0, resumeKey: null, entries: 0 };
    const decoder = new TextDecoder();
    let resumeKey: string | null = null;
    do {
      const res: Response = await fetch(`${base}/cdx?url=lod.test&matchType=domain&output=json&limit=${limit}${resumeKey ? `&resumeKey=${encodeURIComponent(resumeKey)}` : ''}`);
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) r.lines += decoder.decode(chunk, { stream: true }).split('\n').length - 1;
      r.pages++;
      if (res.status !== 200) r.status = res.status;
      resumeKey = res.status === 200 ? res.headers.get('x-resume-key') : null;
    } while (resumeKey);
    r.resumeKey = resumeKey;
    // The dashboard's overview: aggregates and short lists whatever the log's length.
    r.entries = (await store.logCounts()).entries;
    await store.logProgress(2000);
    await store.changeFrequencies();
    await store.latestLog(50);
    await store.searchUrls({ text: '/doc/1', match: 'substring', limit: 50 });
    await store.archiveCounts(Date.now());
    return r;
  } finally {
    await app.close();
    await store.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [dir, limit] = process.argv.slice(2);
  if (!dir || !limit) {
    process.stderr.write('usage: node bin/run-ts.mjs src/server/cdx-probe.ts DIR LIMIT\n');
    process.exit(2);
  }
  process.stdout.write(JSON.stringify(await cdxProbe(dir, Number(limit))) + '\n');
}
