/**
 * What `crawl --trust` adds per document (issue 17 part 2): checking one eddsa-rdfc-2022 proof
 * (src/trust/proof.ts: split off the proof, RDFC-1.0 of the graph and of the proof options, two
 * SHA-256, one Ed25519 verify) against what capture already pays for every document: the graph's
 * canonicalisation (src/archive/canonical.ts). The documents are the crawl bench's
 * (src/testkit/linked-data-site.ts, ~35 triples with a blank node), each signed with one key.
 * Both run in turns in one process, best of the rounds, so the machine's load falls on each alike.
 *
 *   node bin/run-ts.mjs bench/trust.bench.ts [--documents 1000] [--rounds 5] [--quick]
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Quad } from '@rdfjs/types';
import { canonicalize } from '../src/archive/canonical.ts';
import { linkedDataDocument } from '../src/testkit/linked-data-site.ts';
import { realVocabulary } from '../src/testkit/real-vocabulary.ts';
import { parseDocument, signText } from '../src/trust/document.ts';
import { generateKeyFile, parseTrustList, signingKeyFromSecret } from '../src/trust/multikey.ts';
import { verifyGraph } from '../src/trust/proof.ts';
import { option, QUICK } from './args.ts';

const DOCUMENTS = Number(option('--documents') ?? (QUICK ? 300 : 1_000));
const ROUNDS = Number(option('--rounds') ?? (QUICK ? 3 : 5));

const vocabulary = realVocabulary();
const doc = (j: number) => `http://127.0.0.1:${8000 + (j % 10)}/doc/${j}`;
const file = generateKeyFile();
const key = signingKeyFromSecret(file.secretKeyMultibase);
const trust = parseTrustList(file.id);
const signed: Quad[][] = [];
const plain: Quad[][] = [];
for (let i = 0; i < DOCUMENTS; i++) {
  const text = linkedDataDocument(i, DOCUMENTS, doc, vocabulary);
  plain.push(await parseDocument(text, 'Turtle', doc(i), doc(i)));
  signed.push(await parseDocument(await signText(text, 'Turtle', key, doc(i), '2026-12-01T00:00:00Z'), 'Turtle', doc(i), doc(i)));
}

async function timed(run: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await run();
  return performance.now() - t;
}

const best = { canonicalize: Infinity, verify: Infinity };
for (let r = 0; r < ROUNDS; r++) {
  best.canonicalize = Math.min(best.canonicalize, await timed(async () => {
    for (const g of plain) await canonicalize(g);
  }));
  best.verify = Math.min(best.verify, await timed(async () => {
    for (const g of signed) {
      const v = await verifyGraph(g, trust);
      if (v.verdict !== 'verified') throw new Error(`not verified: ${v.reason}`);
    }
  }));
}
const per = (ms: number) => (ms * 1000 / DOCUMENTS).toFixed(0);
const triples = plain.reduce((n, g) => n + g.length, 0) / DOCUMENTS;
console.log(`${DOCUMENTS} documents (${triples.toFixed(1)} triples each, one blank node), best of ${ROUNDS} rounds; ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)}, node ${process.version}`);
console.log('| per document | µs | ratio to canonicalize |');
console.log('|---|---:|---:|');
console.log(`| canonicalize (what capture pays already) | ${per(best.canonicalize)} | 1.00 |`);
console.log(`| verifyGraph (crawl --trust adds) | ${per(best.verify)} | ${(best.verify / best.canonicalize).toFixed(2)} |`);
