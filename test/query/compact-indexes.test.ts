/**
 * A live index keeps up with a crawl one version at a time, and its read indexes take rows in the middle (a
 * document's subjects and objects were mostly terms already, as links of documents indexed before): a tenth of
 * their pages stays empty. At the crawl's end they are built whole again and the space given back
 * (sqlite-schema.ts SqliteIndexes.compactIndexes), answers unchanged.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { VersionArchive } from '../../src/query/index.ts';
import { tempArchive, turtle } from './helpers.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const DOCS = 1_500;
const doc = (i: number) => `http://data${i % 7}.lod.test/doc/${i}`;

/** A document shaped like the generated Web's: a label, a type, a value, a blank node, links to ten others. */
function page(i: number): string {
  const links = Array.from({ length: 10 }, (_, k) => `<${doc((i * 31 + k * 97) % DOCS)}#it>`).join(', ');
  return `<#it> a <http://schema.lod.test/term/Thing${i % 5}> ; <http://www.w3.org/2000/01/rdf-schema#label> "Resource ${i}"@en ;
    <http://vocab.lod.test/ns#value> ${i * 7} ; <http://vocab.lod.test/ns#seeAlso> ${links} ;
    <http://vocab.lod.test/ns#part> [ <http://vocab.lod.test/ns#value> "part of ${i}" ] .`;
}

/** What a user reads: a snapshot at two instants, the documents linking to one, the labels. */
function answers(a: VersionArchive): unknown {
  const lines = (t: number) => [...a.snapshot(t)].map((q) => `${q.graph} ${q.s} ${q.p} ${q.o}`).sort();
  const ids = (t: number, p: object) => a.matchAt(t, p).length;
  return {
    half: lines(T0 + (DOCS / 2) * HOUR),
    all: lines(T0 + DOCS * HOUR),
    linking: ids(T0 + DOCS * HOUR, { o: `<${doc(5)}#it>` }),
    labels: ids(T0 + DOCS * HOUR, { p: '<http://www.w3.org/2000/01/rdf-schema#label>' }),
    things: ids(T0 + DOCS * HOUR, { p: '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>', o: '<http://schema.lod.test/term/Thing3>' }),
  };
}

/** The share of an index's leaf pages that holds no entry. */
function emptyShare(file: string, index: string): number {
  const db = new Database(file, { readonly: true });
  try {
    // Its leaves: an index of a few dozen pages has as many bytes in its interior pages as it has empty.
    const r = db.prepare("SELECT sum(unused) AS unused, sum(pgsize) AS size FROM dbstat WHERE name = ? AND pagetype = 'leaf'").get(index) as { unused: number; size: number };
    return r.unused / r.size;
  } finally {
    db.close();
  }
}

describe('the read indexes built whole again (SQLite)', () => {
  it('after rows went in one at a time: denser indexes, a smaller file, the same answers; then nothing to do', async () => {
    const { archive, dir, cleanup } = tempArchive();
    const file = path.join(dir, 'versions.sqlite');
    try {
      for (let i = 0; i < DOCS; i++) await archive.putVersion(doc(i), T0 + i * HOUR, turtle(page(i), doc(i)));
      archive.flush();
      archive.checkpoint();
      const before = answers(archive);
      const db = new Database(file, { readonly: true });
      expect(db.pragma('auto_vacuum', { simple: true })).toBe(2); // incremental: set on the new file
      db.close();
      const size = fs.statSync(file).size;
      const empty = emptyShare(file, 'quads_by_op');
      expect(empty).toBeGreaterThan(0.05);

      // Under the threshold (rows that went in one at a time since the indexes were last whole): nothing done.
      expect(archive.compactIndexes(1_000_000)).toBeUndefined();
      const done = archive.compactIndexes(1_000)!;
      expect(done.freedBytes).toBeGreaterThan(0);
      archive.checkpoint();
      expect(fs.statSync(file).size).toBe(size - done.freedBytes);
      expect(emptyShare(file, 'quads_by_op')).toBeLessThan(empty / 2);
      expect(answers(archive)).toEqual(before);
      // Built whole just now: nothing to do until as many rows again went in one at a time.
      expect(archive.compactIndexes(1_000)).toBeUndefined();
    } finally {
      await cleanup();
    }
  });

  it('after a bulk load: the hash index of the terms is built whole with the read indexes', async () => {
    const { archive, dir, cleanup } = tempArchive();
    const file = path.join(dir, 'versions.sqlite');
    try {
      // What a catch-up far behind does (catch-up.ts): the read indexes down, the versions in, the indexes built.
      archive.writeTransaction(() => archive.dropReadIndexes());
      for (let i = 0; i < DOCS; i++) await archive.putVersion(doc(i), T0 + i * HOUR, turtle(page(i), doc(i)));
      archive.flush();
      archive.writeTransaction(() => archive.restoreIndexes());
      archive.checkpoint();
      // Terms go into the hash index in no order of its key: kept up row by row, an eighth of its leaves stayed empty.
      expect(emptyShare(file, 'term_rows_by_hash')).toBeLessThan(0.05);
      expect(emptyShare(file, 'quads_by_op')).toBeLessThan(0.05);
      // And the pages it left are given back, not kept in the file.
      const db = new Database(file, { readonly: true });
      expect(db.pragma('freelist_count', { simple: true })).toBe(0);
      db.close();
      expect((answers(archive) as { labels: number }).labels).toBe(DOCS);
    } finally {
      await cleanup();
    }
  });

  it('in a file made before its pages could be given back: keeps them for later rows', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-compact-'));
    try {
      const file = path.join(dir, 'versions.sqlite');
      // A file that had a table before the store made its own: its auto_vacuum stays off, as in an older store.
      const old = new Database(file);
      old.exec('CREATE TABLE older (x)');
      old.close();
      const archive = new VersionArchive(file);
      for (let i = 0; i < DOCS; i++) await archive.putVersion(doc(i), T0 + i * HOUR, turtle(page(i), doc(i)));
      archive.flush();
      const before = answers(archive);
      const done = archive.compactIndexes(1_000)!;
      expect(done.freedBytes).toBe(0);
      expect(done.reusableBytes).toBeGreaterThan(0);
      expect(answers(archive)).toEqual(before);
      await archive.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
