/**
 * What `crawl --trust` adds per document (issue 17 part 2): checking one eddsa-rdfc-2022 proof
 * (src/trust/proof.ts: split off the proof, RDFC-1.0 of the graph and of the proof options, two
 * SHA-256, one Ed25519 verify) against what capture already pays for every document: the graph's
 * canonicalisation (src/rdf/canonical.ts). The documents are the crawl bench's
 * (src/testkit/linked-data-site.ts, ~35 triples with a blank node), each signed with one key.
 * Both run in turns in one process, a batch of documents at a time (generated, signed and parsed per
 * batch, so memory stays flat at 100,000 documents), so the machine's load falls on each alike.
 * Two signers: one `created` date for every proof (a publisher's batch run: the proof options repeat,
 * verifyGraph's memo of their canonical form hits) and one date per document (`sign` run per file).
 *
 *   node bin/run-ts.mjs bench/trust.bench.ts [--documents 100000] [--batch 1000] [--rounds 1] [--quick]
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Quad } from '@rdfjs/types';
import { canonicalize } from '../src/rdf/canonical.ts';
import { linkedDataDocument } from '../src/testkit/linked-data-site.ts';
import { realVocabulary } from '../src/testkit/real-vocabulary.ts';
import { parseDocument, signText } from '../src/trust/document.ts';
import { generateKeyFile, parseTrustList, signingKeyFromSecret } from '../src/trust/multikey.ts';
import { verifyGraph } from '../src/trust/proof.ts';
import { option, QUICK } from './args.ts';

const DOCUMENTS = Number(option('--documents') ?? (QUICK ? 300 : 1_000));
const BATCH = Math.min(DOCUMENTS, Number(option('--batch') ?? 1_000));
const ROUNDS = Number(option('--rounds') ?? (QUICK ? 1 : DOCUMENTS >= 10_000 ? 1 : 5));

const vocabulary = realVocabulary();
const doc = (j: number) => `http://127.0.0.1:${8000 + (j % 10)}/doc/${j}`;
const file = generateKeyFile();
const key = signingKeyFromSecret(file.secretKeyMultibase);
const trust = parseTrustList(file.id);
/** One date for a batch run; one a document (seconds apart) as `sign` run per file writes them. */
const created = (j: number, perDocument: boolean) => perDocument ? new Date(Date.UTC(2026, 11, 1) + j * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') : '2026-12-01T00:00:00Z';

async function batch(from: number, to: number): Promise<{ plain: Quad[][]; same: Quad[][]; each: Quad[][] }> {
  const out = { plain: [] as Quad[][], same: [] as Quad[][], each: [] as Quad[][] };
  for (let i = from; i < to; i++) {
    const text = linkedDataDocument(i, DOCUMENTS, doc, vocabulary);
    out.plain.push(await parseDocument(text, 'Turtle', doc(i), doc(i)));
    out.same.push(await parseDocument(await signText(text, 'Turtle', key, doc(i), created(i, false)), 'Turtle', doc(i), doc(i)));
    out.each.push(await parseDocument(await signText(text, 'Turtle', key, doc(i), created(i, true)), 'Turtle', doc(i), doc(i)));
  }
  return out;
}

async function timed(run: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await run();
  return performance.now() - t;
}

async function verifyAll(graphs: Quad[][]): Promise<void> {
  for (const g of graphs) {
    const v = await verifyGraph(g, trust);
    if (v.verdict !== 'verified') throw new Error(`not verified: ${v.reason}`);
  }
}

const totals = { canonicalize: 0, same: 0, each: 0 };
let triples = 0;
let peakRss = 0;
const t0 = performance.now();
const load0 = os.loadavg()[0]!;
for (let from = 0; from < DOCUMENTS; from += BATCH) {
  const b = await batch(from, Math.min(DOCUMENTS, from + BATCH));
  triples += b.plain.reduce((n, g) => n + g.length, 0);
  // Best of the rounds within the batch, summed over batches.
  const best = { canonicalize: Infinity, same: Infinity, each: Infinity };
  for (let r = 0; r < ROUNDS; r++) {
    best.canonicalize = Math.min(best.canonicalize, await timed(async () => {
      for (const g of b.plain) await canonicalize(g);
    }));
    best.same = Math.min(best.same, await timed(() => verifyAll(b.same)));
    best.each = Math.min(best.each, await timed(() => verifyAll(b.each)));
  }
  totals.canonicalize += best.canonicalize;
  totals.same += best.same;
  totals.each += best.each;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  if (DOCUMENTS >= 10_000) process.stderr.write(`\r${Math.min(DOCUMENTS, from + BATCH)} of ${DOCUMENTS} documents, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}
if (DOCUMENTS >= 10_000) process.stderr.write('\n');
const per = (ms: number) => (ms * 1000 / DOCUMENTS).toFixed(0);
console.log(`${DOCUMENTS} documents (${(triples / DOCUMENTS).toFixed(1)} triples each, one blank node) in batches of ${BATCH}, best of ${ROUNDS} round${ROUNDS > 1 ? 's' : ''} a batch; ${os.cpus().length} cores, load average ${load0.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end, node ${process.version}; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB; ${((performance.now() - t0) / 1000).toFixed(0)} s in all`);
console.log('| per document | µs | ratio to canonicalize |');
console.log('|---|---:|---:|');
console.log(`| canonicalize (what capture pays already) | ${per(totals.canonicalize)} | 1.00 |`);
console.log(`| verifyGraph, one created date for all proofs (crawl --trust adds) | ${per(totals.same)} | ${(totals.same / totals.canonicalize).toFixed(2)} |`);
console.log(`| verifyGraph, a created date per proof (crawl --trust adds) | ${per(totals.each)} | ${(totals.each / totals.canonicalize).toFixed(2)} |`);
