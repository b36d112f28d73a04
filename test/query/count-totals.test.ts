import { describe, it, expect } from 'vitest';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
const HOUR_MS = 3_600_000;
import { T0 } from './helpers.ts';
import { VERSION_BACKENDS, type BackendMaker } from './version-backends.ts';
import type { VersionBackend } from '../../src/query/index.ts';
import { runOnStore } from '../../src/testkit/store-sql.ts';
import { linkedDataWeb } from '../../src/testkit/linked-data-web.ts';
import { COUNT_TOTALS_KEY } from '../../src/versions/count-totals.ts';

/**
 * A COUNT of every triple at T reads the rows valid at T from the changes the store keeps summed per bucket of
 * time (src/versions/count-totals.ts) instead of scanning them. Each total must be the number of rows valid then,
 * whatever order versions come in: documents written out of time order with each other, a version replaced
 * at its own instant, deletions, a document deleted and put again, a rebuild; and a store written before
 * the totals existed must gain them, and count the same, when it is next opened for writing.
 */
const DOCS = 24;
const web = linkedDataWeb({ documents: DOCS, hosts: 4 });
const every = { inDocument: true };

/** A document's quads at one version: the generated document (dozens of triples, a blank node) with a share left out. */
function version(doc: number, v: number): Quad[] {
  const quads = new N3.Parser({ format: 'text/turtle' }).parse(web.turtle(doc));
  return quads.filter((_q, i) => (i * 7 + v * 3) % 5 !== 0 || v % 4 === 0);
}

/** A seeded history: each document's versions move forward in time, the documents' interleaved out of time order. */
async function writeHistory(archive: VersionBackend, seed: number): Promise<void> {
  let state = seed;
  const random = (n: number) => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) % n);
  const at = Array.from({ length: DOCS }, () => T0 + random(48) * HOUR_MS);
  const versions = new Array<number>(DOCS).fill(0);
  for (let step = 0; step < 160; step++) {
    const d = random(DOCS);
    const move = random(6);
    // 0: a version replaced at its own instant; 5: the document deleted; else a new version some hours on.
    if (move !== 0) at[d]! += (1 + random(12)) * HOUR_MS;
    if (move === 5) await archive.deleteGraph(web.document(d), at[d]!);
    else await archive.putVersion(web.document(d), at[d]!, version(d, ++versions[d]!));
  }
  // An older crawl's document, written last (WARC files imported into the archive), across a 2^40 ms boundary (2004).
  await archive.putVersion('http://old.lod.test/doc', Date.UTC(1999, 0, 1), version(0, 1));
  await archive.deleteGraph('http://old.lod.test/doc', Date.UTC(2009, 0, 1));
  archive.flush();
}

/** Every instant where the count can change, with a moment before the first and one between each two. */
function instants(archive: VersionBackend): number[] {
  const points = archive.changePoints();
  return [points[0]! - 1, ...points.flatMap((t, i) => [t, i + 1 < points.length ? Math.floor((t + points[i + 1]!) / 2) : t + HOUR_MS])];
}

const rowsAt = (archive: VersionBackend, t: number) => [...archive.snapshotRows(t)].length;

/** Runs SQL on the store's own database, as an older datamonitor or a hand edit would leave it. */
const onStore = (backend: BackendMaker, archive: VersionBackend, sqlite: string[], postgres: string[]) =>
  runOnStore(archive.file, backend.name === 'sqlite' ? sqlite : postgres);

describe.each(VERSION_BACKENDS)('the count of every triple kept per instant, on $name', (backend) => {
  it.skipIf(backend.skip)('equals the rows valid at every instant of a history written out of time order, with replacements and deletions', async () => {
    const made = backend.make();
    try {
      await writeHistory(made.archive, 7);
      const times = instants(made.archive);
      expect(times.length).toBeGreaterThan(100);
      const counted = times.map((t) => made.archive.countAt(t, {}, every));
      expect(counted).toEqual(times.map((t) => rowsAt(made.archive, t)));
      expect(counted[0]).toBe(0);
      expect(Math.max(...counted)).toBeGreaterThan(DOCS * 20);
      // A rebuild empties the store and its totals alike; what is written next is counted from nothing.
      made.archive.writeTransaction(() => made.archive.clear());
      expect(made.archive.countAt(T0 + 1000 * HOUR_MS, {}, every)).toBe(0);
      await writeHistory(made.archive, 11);
      expect(instants(made.archive).map((t) => made.archive.countAt(t, {}, every))).toEqual(instants(made.archive).map((t) => rowsAt(made.archive, t)));
    } finally {
      await made.cleanup();
    }
  }, 120_000);

  // In process, a version's change of the totals is written at the commit, or before a count on the same connection.
  it.skipIf(backend.skip || backend.name !== 'sqlite')('counts the versions of a batch the writer has not committed yet', async () => {
    const made = backend.make();
    try {
      await made.archive.putVersion(web.document(0), T0, version(0, 1));
      await made.archive.putVersion(web.document(1), T0 + HOUR_MS, version(1, 1));
      await made.archive.putVersion(web.document(2), T0 + 2 * HOUR_MS, version(2, 1));
      for (const t of [T0, T0 + HOUR_MS, T0 + 3 * HOUR_MS]) expect(made.archive.countAt(t, {}, every)).toBe(rowsAt(made.archive, t));
      expect(made.archive.countAt(T0 + 3 * HOUR_MS, {}, every)).toBeGreaterThan(0);
    } finally {
      await made.cleanup();
    }
  });

  it.skipIf(backend.skip)('a store written before the totals is counted by a scan read-only, and gains them when opened for writing', async () => {
    const made = backend.make();
    try {
      await writeHistory(made.archive, 3);
      const times = instants(made.archive);
      const truth = times.map((t) => rowsAt(made.archive, t));
      await made.archive.close();
      await onStore(backend, made.archive,
        ['DROP TABLE count_sums', `DELETE FROM meta WHERE key = '${COUNT_TOTALS_KEY}'`],
        ['DROP TABLE vs_count_sums', `DELETE FROM vs_meta WHERE key = '${COUNT_TOTALS_KEY}'`]);
      const reader = made.reopen({ readonly: true });
      expect(times.map((t) => reader.countAt(t, {}, every))).toEqual(truth);
      await reader.close();

      const writer = made.reopen();
      expect(times.map((t) => writer.countAt(t, {}, every))).toEqual(truth);
      // The count is read from the totals it built: a total edited by hand shows in it.
      await writer.close();
      const last = times.at(-1)!;
      await onStore(backend, made.archive,
        // Each level's last bucket holds the last change: the count after it reads exactly one of them.
        ['UPDATE count_sums SET change = change + 1000 WHERE (level, bucket) IN (SELECT level, max(bucket) FROM count_sums GROUP BY level)'],
        ['UPDATE vs_count_sums SET change = change + 1000 WHERE (level, bucket) IN (SELECT level, max(bucket) FROM vs_count_sums GROUP BY level)']);
      const edited = made.reopen({ readonly: true });
      expect(edited.countAt(last, {}, every)).toBe(truth.at(-1)! + 1000);
      await edited.close();
    } finally {
      await made.cleanup();
    }
  }, 120_000);
});
