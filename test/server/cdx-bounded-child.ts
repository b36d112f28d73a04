/**
 * `/cdx` and the dashboard's store reads in a process of their own, so that a test can cap its heap: the CDX
 * route of checkout ROOT on a real 127.0.0.1 server over the archive in DIR, one domain query of LIMIT lines
 * read by a client as it streams (counted, not kept), then the reads behind the dashboard's overview.
 * Prints {status, lines, resumeKey, entries} as one JSON line. Usage: run-ts.mjs cdx-bounded-child.ts ROOT DIR LIMIT
 */
import path from 'node:path';
import Fastify from 'fastify';

const [root, dir, limit] = process.argv.slice(2) as [string, string, string];
const { openStore } = (await import(path.join(root, 'src/store/index.ts'))) as typeof import('../../src/store/index.ts');
const { registerCdxRoute } = (await import(path.join(root, 'src/server/cdx.ts'))) as typeof import('../../src/server/cdx.ts');
const store = await openStore(dir, undefined, { readonly: true });
await store.init();
const app = Fastify();
registerCdxRoute(app, { store, publicUrl: () => 'http://127.0.0.1' } as unknown as Parameters<typeof registerCdxRoute>[1]);
const base = await app.listen({ host: '127.0.0.1', port: 0 });
const res = await fetch(`${base}/cdx?url=lod.test&matchType=domain&output=json&limit=${limit}`);
let lines = 0;
const decoder = new TextDecoder();
for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) lines += decoder.decode(chunk, { stream: true }).split('\n').length - 1;
// The dashboard's overview: aggregates and short lists whatever the log's length.
const counts = await store.logCounts();
await store.logProgress(2000);
await store.changeFrequencies();
await store.latestLog(50);
await store.searchUrls({ text: '/doc/1', match: 'substring', limit: 50 });
await store.archiveCounts(Date.now());
await app.close();
await store.close();
process.stdout.write(JSON.stringify({ status: res.status, lines, resumeKey: res.headers.get('x-resume-key'), entries: counts.entries }) + '\n');
