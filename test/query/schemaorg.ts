import fs from 'node:fs';
import path from 'node:path';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';

/** The 52 schema.org releases in ../shared/data/rdf (used by the BEAR test and bench/query.bench.ts). */
export interface Release { name: string; file: string; time: number }

const HOUR = 3_600_000;

/** Release dates from index.tsv (official date, else the date it entered git), made strictly increasing. */
export function readReleases(dir: string): Release[] {
  const lines = fs.readFileSync(path.join(dir, 'index.tsv'), 'utf8').trim().split('\n').slice(1);
  const releases: Release[] = [];
  for (const line of lines) {
    const [name, gitAdded, official] = line.split('\t');
    let time = Date.parse(official || gitAdded);
    // Some releases share a day (7.01/7.02) or a missing official date falls after the next one (19.0):
    // the archive wants one instant per version, in release order.
    const prev = releases.at(-1);
    if (prev && time <= prev.time) time = prev.time + HOUR;
    releases.push({ name, file: path.join(dir, `${name}.nq`), time });
  }
  return releases;
}

/**
 * A release's triples, in the default graph. The files name their one graph after the release
 * (`<http://schema.org/#10.0>`); the archive keeps a quad's own graph, so with the label each release
 * would be a different graph and every triple would change at every version. The proof is about one
 * document's triples across versions: the label is dropped.
 */
export function parseRelease(file: string): Quad[] {
  return new N3.Parser({ format: 'application/n-quads' }).parse(fs.readFileSync(file, 'utf8'))
    .map((q) => N3.DataFactory.quad(q.subject, q.predicate, q.object));
}
