/**
 * Canonicalisation per document (issue 16): the crawl's `canonicalize` (src/rdf/canonical.ts:
 * RDFC-1.0 labels from first-degree hashes where they are all distinct) against rdf-canonize's
 * RDFC-1.0 on the same quads (what every document with a blank node paid before), and against the
 * sorted lines a graph without blank nodes gets (the same documents with the blank node's triples
 * left out: the cost floor of any canonical form). The documents are the crawl bench's
 * (src/testkit/linked-data-site.ts, schema.org terms from ../shared/data when present). The three
 * are run in turns in one process, so the machine's load falls on each alike; outputs are checked equal.
 *
 *   node bin/run-ts.mjs bench/canonical.bench.ts [--documents 2000] [--rounds 5] [--quick]
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Quad } from '@rdfjs/types';
import { Parser } from 'n3';
import canonize from 'rdf-canonize';
import { canonicalize, quadToNQuads } from '../src/rdf/canonical.ts';
import { linkedDataDocument } from '../src/testkit/linked-data-site.ts';
import { realVocabulary } from '../src/testkit/real-vocabulary.ts';
import { option, QUICK } from './args.ts';

const DOCUMENTS = Number(option('--documents') ?? (QUICK ? 1_000 : 2_000));
const ROUNDS = Number(option('--rounds') ?? (QUICK ? 3 : 5));

const vocabulary = realVocabulary();
const doc = (j: number) => `http://127.0.0.1:${8000 + (j % 10)}/doc/${j}`;
const graphs: Quad[][] = [];
for (let i = 0; i < DOCUMENTS; i++) graphs.push(new Parser({ baseIRI: doc(i) }).parse(linkedDataDocument(i, DOCUMENTS, doc, vocabulary)) as Quad[]);
const withoutBlank = graphs.map((g) => g.filter((q) => q.subject.termType !== 'BlankNode' && q.object.termType !== 'BlankNode'));

/** What canonicalize did for these documents before: every graph with a blank node through rdf-canonize (distinct quads first). */
async function previous(quads: Quad[]): Promise<string> {
  const seen = new Set<string>();
  const set = quads.filter((q) => {
    const k = quadToNQuads(q);
    return seen.has(k) ? false : (seen.add(k), true);
  });
  return canonize.canonize(set, { algorithm: 'RDFC-1.0', maxWorkFactor: 1, signal: AbortSignal.timeout(5_000) });
}

const contenders: Record<string, (q: Quad[], i: number) => Promise<string>> = {
  'canonicalize (first-degree labels, this change)': async (q) => (await canonicalize(q)).nquads,
  'rdf-canonize RDFC-1.0 (before)': (q) => previous(q),
  'sorted lines, blank node left out (floor)': async (_q, i) => (await canonicalize(withoutBlank[i]!)).nquads,
};

// Same output, or the comparison means nothing.
for (let i = 0; i < Math.min(DOCUMENTS, 200); i++) {
  if ((await canonicalize(graphs[i]!)).nquads !== (await previous(graphs[i]!))) throw new Error(`document ${i}: canonicalize and rdf-canonize disagree`);
}

const best = new Map<string, number>();
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, run] of Object.entries(contenders)) {
    const t0 = performance.now();
    for (let i = 0; i < DOCUMENTS; i++) await run(graphs[i]!, i);
    const us = ((performance.now() - t0) * 1000) / DOCUMENTS;
    best.set(name, Math.min(best.get(name) ?? Infinity, us));
  }
}

const triples = graphs.reduce((n, g) => n + g.length, 0) / DOCUMENTS;
const ref = best.get('rdf-canonize RDFC-1.0 (before)')!;
const lines = [
  '## Canonicalisation per document: first-degree labels against rdf-canonize',
  '',
  `Command: \`node bin/run-ts.mjs bench/canonical.bench.ts --documents ${DOCUMENTS} --rounds ${ROUNDS}\`. ${os.cpus().length} cores shared with other work (load average ${os.loadavg()[0]!.toFixed(1)}): the three contenders run in turns in one process, best of ${ROUNDS} rounds each.`,
  '',
  `Documents: ${DOCUMENTS.toLocaleString('en')} of the crawl bench's site (src/testkit/linked-data-site.ts), ${triples.toFixed(1)} triples and one blank node each, terms from ${vocabulary.source === 'schema.org' ? `schema.org ${vocabulary.release}` : 'a generated vocabulary (../shared/data absent)'}. Outputs of the first two checked byte-identical on ${Math.min(DOCUMENTS, 200)} documents.`,
  '',
  '| contender | µs per document | speed vs rdf-canonize |',
  '| --- | ---: | ---: |',
  ...[...best].map(([name, us]) => `| ${name} | ${us.toFixed(1)} | ${(ref / us).toFixed(2)}× |`),
];
process.stdout.write(lines.join('\n') + '\n');
