/**
 * What `crawl --variants` costs (issue 17 part 4): the same generated site crawled without and with it, in
 * turns in one process, so the machine's load falls on each alike. The site (src/testkit/variant-site.ts)
 * serves each document as Turtle, JSON-LD, RDF/XML and HTML+RDFa: most negotiate on Accept (`Vary: Accept`,
 * Content-Location), a fifth advertise their serialisations with `Link: rel="alternate"` instead, and a
 * tenth each drop a triple from their JSON-LD or ignore Accept. Reported: requests the server answered,
 * bytes downloaded, crawl time, and the ratios with/without of the same round (median over rounds).
 *
 *   node bin/run-ts.mjs bench/variants.bench.ts [--documents 100] [--rounds 3] [--quick]
 */
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { crawl, type CrawlSummary } from '../src/crawler/crawl.ts';
import { startVariantSite, type VariantKind } from '../src/testkit/variant-site.ts';
import { option, QUICK } from './args.ts';
import { median } from '../src/util/stats.ts';

const DOCUMENTS = Number(option('--documents') ?? (QUICK ? 30 : 100));
const ROUNDS = Number(option('--rounds') ?? (QUICK ? 1 : 3));

const kind = (i: number): VariantKind => (i % 10 === 3 ? 'drops' : i % 10 === 7 ? 'ignores' : i % 5 === 1 ? 'linked' : 'honest');

interface Run { requests: number; bytes: number; ms: number; summary: CrawlSummary }

async function once(variants: boolean): Promise<Run> {
  const site = await startVariantSite({ documents: DOCUMENTS, kind, linksPerDocument: 6 });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-variants-bench-'));
  try {
    const t = performance.now();
    const summary = await crawl({ seeds: [site.seed], dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, depth: 1000, domains: ['127.0.0.1'], variants }).run();
    const ms = performance.now() - t;
    if (summary.documents < DOCUMENTS) throw new Error(`crawled ${summary.documents} of ${DOCUMENTS} documents`);
    return { requests: site.requests.filter((r) => r.path !== '/robots.txt').length, bytes: summary.bytes, ms, summary };
  } finally {
    await site.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const rounds: Array<{ without: Run; with: Run }> = [];
for (let r = 0; r < ROUNDS; r++) {
  // Alternate which goes first, so a warming JIT or a load spike does not favour one side.
  const a = r % 2 === 0 ? await once(false) : await once(true);
  const b = r % 2 === 0 ? await once(true) : await once(false);
  rounds.push(r % 2 === 0 ? { without: a, with: b } : { without: b, with: a });
}
const last = rounds.at(-1)!;
const v = last.with.summary.variants!;
console.log(`${DOCUMENTS} documents on one origin (delay 0), ${ROUNDS} round(s); ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)}, node ${process.version}`);
console.log('| | without --variants | with --variants | ratio (median of rounds) |');
console.log('|---|---:|---:|---:|');
const row = (name: string, f: (r: Run) => number, fmt: (n: number) => string) =>
  console.log(`| ${name} | ${fmt(f(last.without))} | ${fmt(f(last.with))} | ${median(rounds.map((x) => f(x.with) / f(x.without))).toFixed(2)}× |`);
row('requests answered (robots.txt aside)', (r) => r.requests, String);
row('documents archived', (r) => r.summary.documents, String);
row('bytes downloaded', (r) => r.bytes, (n) => `${(n / 1024).toFixed(0)} KiB`);
row('crawl time', (r) => r.ms, (n) => `${(n / 1000).toFixed(2)} s`);
console.log();
console.log(`with --variants: ${v.documents} documents offered more; ${v.requests} requests for representations, ${v.archived} archived, ${v.duplicates} not archived (same bytes, type or Content-Location, or no 2xx); ${v.agree} agree, ${v.mismatch} disagree, ${v.notCompared} not compared`);
const dropping = Array.from({ length: DOCUMENTS }, (_, i) => i).filter((i) => kind(i) === 'drops').length;
console.log(`documents whose JSON-LD drops a triple: ${dropping}; disagreements found: ${v.mismatch}`);
