/**
 * `crawl --ldes` (src/crawler/ldes/) reading a big archive's stream into a fresh archive: the first read (every
 * page fetched, parsed and archived, every member canonicalised and archived), the second (nothing new: the
 * closed windows' pages read back from the archive, the open ones fetched again), and as the peer in the same
 * run, ldes-client replicating the same stream in memory (it archives nothing).
 *
 * The archive is src/testkit/scale-archive.ts's (dated 2026-01-01, so every window is closed and served
 * immutable), indexed, served on 127.0.0.1 with pages of 100.
 *
 * Peak RSS is the process's (the server included, the same in every read), sampled every 100 ms during each read.
 *
 * Run: node bin/run-ts.mjs bench/ldes-source.bench.ts [--quick] [--docs N] [--no-peer] [--source DIR]
 *   default 5,000 documents; --quick 1,000; --no-peer leaves ldes-client out (a stream too big for its memory).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { intoConfig, replicateLDES } from 'ldes-client';
import { buildScaleArchive } from '../src/testkit/scale-archive.ts';
import { buildServer } from '../src/server/index.ts';
import { openStore } from '../src/store/index.ts';
import { VersionIndex } from '../src/versions/version-index.ts';
import { crawl } from '../src/crawler/crawl.ts';
import { option, QUICK } from './args.ts';

const DOCS = Number(option('--docs') ?? (QUICK ? 1_000 : 5_000));
const PEER = !process.argv.includes('--no-peer');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-ldes-source-bench-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
// --source DIR: the scale archive kept there, built on the first run (a big one takes minutes to build).
const kept = option('--source');
const source = kept ?? path.join(dir, 'source');
const mirror = path.join(dir, 'mirror');

const built = path.join(source, '.bench-built');
if (!fs.existsSync(built)) {
  await buildScaleArchive({ dataDir: source, documents: DOCS, hosts: 10 });
  const store = await openStore(source);
  await store.init();
  const index = VersionIndex.open(source, store);
  await index.catchUp();
  await index.close();
  await store.close();
  fs.writeFileSync(built, String(DOCS));
}
const app = await buildServer({ dataDir: source });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const root = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/ldes`;

/** Runs `work`, sampling the process's RSS: its time, the RSS before and the peak RSS in MB. */
async function measured<T>(work: () => Promise<T>): Promise<{ ms: number; startMb: number; peakMb: number; value: T }> {
  global.gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => void (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  const t = performance.now();
  try {
    const value = await work();
    return { ms: performance.now() - t, startMb: start / 2 ** 20, peakMb: Math.max(peak, process.memoryUsage().rss) / 2 ** 20, value };
  } finally {
    clearInterval(timer);
  }
}

async function read() {
  const r = await measured(() => crawl({ seeds: [], ldes: [root], dataDir: mirror, delayMs: 0, allowPrivate: true, concurrency: 4 }).run());
  return { ms: r.ms, peakMb: r.peakMb, startMb: r.startMb, summary: r.value.ldes! };
}

const first = await read();
const second = await read();
let replicated = 0;
const peer = PEER ? await measured(async () => {
  const reader = replicateLDES(intoConfig({ url: root }), 'none').stream({ highWaterMark: 100 }).getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) replicated++;
}) : undefined;
const peerMs = peer?.ms ?? Number.NaN;
await app.close();

const members = first.summary.members;
const a = first.summary.archived;
const mb = (r: { startMb: number; peakMb: number }) => `${r.peakMb.toFixed(0)} MB (+${(r.peakMb - r.startMb).toFixed(0)})`;
const line = (name: string, r: { ms: number; startMb: number; peakMb: number }, what: string) => `| ${name} | ${(r.ms / 1000).toFixed(1)} s | ${((members / r.ms) * 1000).toFixed(0)} | ${PEER ? (r.ms / peerMs).toFixed(2) : '–'} | ${mb(r)} | ${what} |`;
console.log([
  `## Reading a Linked Data Event Stream into an archive (crawl --ldes): ${DOCS.toLocaleString('en')} documents`,
  '',
  `Command: \`node bin/run-ts.mjs bench/ldes-source.bench.ts${DOCS === 5_000 ? '' : ` --docs ${DOCS}`}${PEER ? '' : ' --no-peer'}\`, ${new Date().toISOString().slice(0, 10)}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the end (2-core machine shared with other work: indicative). The scale archive served on 127.0.0.1 (pages of 100, every window closed), read by \`crawl --ldes\` into a fresh archive, then again; ldes-client replicating the same stream in the same run is the peer (in memory, it archives nothing).`,
  '',
  `${members.toLocaleString('en')} members (${a.new} new, ${a.changed} changed, ${a.deleted} deleted, ${a.unchanged} unchanged).`,
  '',
  '| read | time | members/s | ÷ ldes-client | peak RSS (+ over the RSS before) | pages |',
  '| --- | ---: | ---: | ---: | ---: | --- |',
  line('crawl --ldes, first', first, `${first.summary.pages.fetched} fetched and archived`),
  line('crawl --ldes, again (nothing new)', second, `${second.summary.pages.fetched} fetched, ${second.summary.pages.fromArchive} read back; ${second.summary.skipped.notNewer} members archived before`),
  ...(peer ? [`| ldes-client (peer) | ${(peerMs / 1000).toFixed(1)} s | ${((replicated / peerMs) * 1000).toFixed(0)} | 1.00 | ${mb(peer)} | ${replicated} members emitted |`] : []),
].join('\n'));
