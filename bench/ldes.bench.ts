/**
 * The LDES at /ldes (src/server/ldes.ts) on a big archive: its size per change (every fragment's bytes, as
 * served and gzipped, over the members it lists) and a fragment's latency (the root, a day's window, a page of
 * members), beside the latency of /.well-known/void on the same server in the same run as a reference.
 *
 * The archive is src/testkit/scale-archive.ts's (the generated Linked Data Web as a crawl leaves it: a
 * version of every document, a second of every tenth, a 404 for every hundredth after it), indexed before the
 * server starts. The whole stream is walked by following every tree:node link from the root, once each.
 *
 * Run: node bin/run-ts.mjs bench/ldes.bench.ts [--quick] [--docs N] [--runs N]
 *   default 100,000 documents; --quick 10,000.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { buildScaleArchive } from '../src/testkit/scale-archive.ts';
import { buildServer } from '../src/server/index.ts';
import { openStore } from '../src/store/index.ts';
import { VersionIndex } from '../src/versions/version-index.ts';
import { LDES_PAGE_SIZE } from '../src/server/ldes.ts';
import { median } from '../src/util/stats.ts';
import { option, QUICK } from './args.ts';

const DOCS = Number(option('--docs') ?? (QUICK ? 10_000 : 100_000));
const RUNS = Number(option('--runs') ?? (QUICK ? 5 : 20));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-ldes-bench-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

let t = performance.now();
await buildScaleArchive({ dataDir: dir, documents: DOCS, hosts: 20, onProgress: (n) => process.stderr.write(`\rbuilding: ${n} documents`) });
process.stderr.write(`\nbuilt ${DOCS} documents in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
t = performance.now();
{
  const store = await openStore(dir);
  await store.init();
  const index = VersionIndex.open(dir, store);
  await index.catchUp();
  const archive = await index.current();
  const versions = archive.stats().versions;
  await index.close();
  await store.close();
  process.stderr.write(`indexed ${versions} versions in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
}

const app = await buildServer({ dataDir: dir });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

/** One GET: its body and the milliseconds to the last byte. */
async function get(url: string): Promise<{ body: string; ms: number }> {
  const start = performance.now();
  const res = await fetch(url, { headers: { accept: 'application/trig' } });
  const body = await res.text();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${body.slice(0, 200)}`);
  return { body, ms: performance.now() - start };
}

// The whole stream: every fragment once, by the tree:node links.
t = performance.now();
const seen = new Set<string>([`${base}/ldes`]);
const queue = [`${base}/ldes`];
let bytes = 0;
let gzipped = 0;
let members = 0;
let fragments = 0;
let memberTriples = 0;
let aDay: string | undefined;
let aPage: string | undefined;
while (queue.length > 0) {
  const url = queue.shift()!;
  const { body } = await get(url);
  fragments++;
  bytes += Buffer.byteLength(body);
  gzipped += zlib.gzipSync(body).length;
  const listed = body.match(/ tree:member /g)?.length ?? 0;
  members += listed;
  memberTriples += body.split('\n').filter((l) => l.startsWith('  ')).length;
  if (listed > 0) aPage ??= url;
  for (const m of body.matchAll(/ tree:node <([^>]+)>/g)) {
    const next = m[1]!.replaceAll('&amp;', '&');
    if (seen.has(next)) continue;
    seen.add(next);
    if (url === `${base}/ldes`) aDay ??= next;
    queue.push(next);
  }
}
const walkMs = performance.now() - t;

/** The median latency of `url` over RUNS requests, alternated with the reference route's. */
async function latency(url: string): Promise<{ ms: number; reference: number; bytes: number }> {
  const mine: number[] = [];
  const reference: number[] = [];
  let size = 0;
  for (let i = 0; i < RUNS; i++) {
    const r = await get(url);
    size = Buffer.byteLength(r.body);
    mine.push(r.ms);
    reference.push((await get(`${base}/.well-known/void`)).ms);
  }
  return { ms: median(mine), reference: median(reference), bytes: size };
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const rows = [
  ['the root (a relation pair per day)', `${base}/ldes`],
  ['a day (split by hour)', aDay!],
  [`a page of members (up to ${LDES_PAGE_SIZE})`, aPage!],
] as const;
const out: string[] = [
  `## Linked Data Event Stream: ${DOCS.toLocaleString('en')} documents`,
  '',
  `Command: \`node bin/run-ts.mjs bench/ldes.bench.ts${DOCS === 100_000 ? '' : ` --docs ${DOCS}`}\` (2-core machine shared with other work: indicative). The scale archive (src/testkit/scale-archive.ts), indexed, served on 127.0.0.1; the whole stream walked by its tree:node links, pages of ${LDES_PAGE_SIZE}.`,
  '',
  `${members.toLocaleString('en')} members (every change) in ${fragments.toLocaleString('en')} fragments, walked in ${(walkMs / 1000).toFixed(1)} s: ${(bytes / 2 ** 20).toFixed(1)} MiB of TriG, **${(bytes / members).toFixed(0)} bytes per change** (${(gzipped / members).toFixed(0)} gzipped), the member's whole graph being ${(memberTriples / members).toFixed(1)} triples on average.`,
  '',
  `| fragment | bytes | median of ${RUNS} | /.well-known/void, same run | ratio |`,
  '| --- | ---: | ---: | ---: | ---: |',
];
for (const [name, url] of rows) {
  const l = await latency(url);
  out.push(`| ${name} | ${kb(l.bytes)} | ${l.ms.toFixed(1)} ms | ${l.reference.toFixed(1)} ms | ${(l.ms / l.reference).toFixed(2)} |`);
}
await app.close();
console.log(out.join('\n'));
