import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { VersionArchive, openVersionStore } from '../../src/query/index.ts';
import { termHash, termHash32 } from '../../src/rdf/terms.ts';
import { OPEN } from '../../src/versions/sqlite-store.ts';
import { DAY, T0, turtle } from './helpers.ts';

const DOC = 'http://people.lod.test/alice.ttl';
const OTHER = 'http://places.lod.test/lyon.ttl';

/** Two documents over four versions: a change, a blank node, links to another host, a deletion. */
async function fill(a: VersionArchive): Promise<void> {
  const alice = `ex:alice a <http://xmlns.com/foaf/0.1/Person> ; <http://xmlns.com/foaf/0.1/name> "Alice"@en ;
    <http://xmlns.com/foaf/0.1/based_near> <http://places.lod.test/lyon> ; <http://xmlns.com/foaf/0.1/knows> [ <http://xmlns.com/foaf/0.1/name> "Bob" ] .`;
  await a.putVersion(DOC, T0, turtle(alice));
  await a.putVersion(OTHER, T0 + DAY, turtle('<http://places.lod.test/lyon> <http://www.w3.org/2000/01/rdf-schema#label> "Lyon"@fr ; <http://www.w3.org/2002/07/owl#sameAs> <http://dbpedia.org/resource/Lyon> .'));
  await a.putVersion(DOC, T0 + 2 * DAY, turtle(alice.replace('"Alice"@en', '"Alice Liddell"@en')));
  await a.deleteGraph(OTHER, T0 + 3 * DAY);
  a.flush();
}

/** What a user reads of the archive: snapshots, a diff, a triple's versions, the version log. */
function answers(a: VersionArchive): unknown {
  const snap = (t: number) => [...a.snapshot(t)].map((q) => `${q.graph} ${q.s} ${q.p} ${q.o}`).sort();
  return {
    snapshots: [T0, T0 + DAY, T0 + 2 * DAY, T0 + 3 * DAY].map(snap),
    delta: a.delta(T0, T0 + 3 * DAY),
    spans: [a.delta(T0 - 1, T0 + DAY), a.delta(T0 + DAY / 2, T0 + 2 * DAY)],
    subjects: [T0, T0 + DAY, T0 + 3 * DAY].map((t) => a.countAt(t, {}, { distinct: ['s'], inDocument: false })),
    name: a.patternVersions({ s: { variable: 's' }, p: { term: '<http://xmlns.com/foaf/0.1/name>' }, o: { variable: 'o' } }),
    versions: [a.versions(DOC), a.versions(OTHER)],
  };
}

/** Turns a store into the format before end_t: every end stored (OPEN while open), an index of each end. */
function toOldFormat(file: string): void {
  const db = new Database(file);
  db.exec(`CREATE TABLE quads_old (g INTEGER NOT NULL, s INTEGER NOT NULL, p INTEGER NOT NULL, o INTEGER NOT NULL,
      h INTEGER NOT NULL, from_t INTEGER NOT NULL, to_t INTEGER NOT NULL, ng INTEGER);
    INSERT INTO quads_old (rowid, g, s, p, o, h, from_t, to_t, ng) SELECT rowid, g, s, p, o, rowid * 7919, from_t, to_t, ng FROM quads;
    DROP TABLE quads; ALTER TABLE quads_old RENAME TO quads;
    CREATE INDEX quads_by_graph ON quads (g, to_t); CREATE INDEX quads_by_from ON quads (from_t); CREATE INDEX quads_by_to ON quads (to_t);
    CREATE INDEX quads_by_sp ON quads (s, p); CREATE INDEX quads_by_p ON quads (p); CREATE INDEX quads_by_op ON quads (o, p);
    CREATE INDEX quads_by_ng ON quads (ng) WHERE ng IS NOT NULL;`);
  db.close();
}

/** Turns a store into the format with a hash of each row's triple (`h`), the open end already NULL. */
function toRowHashFormat(file: string): void {
  const db = new Database(file);
  db.exec(`CREATE TABLE quads_old (g INTEGER NOT NULL, s INTEGER NOT NULL, p INTEGER NOT NULL, o INTEGER NOT NULL,
      h INTEGER NOT NULL, from_t INTEGER NOT NULL, end_t INTEGER, ng INTEGER,
      to_t INTEGER GENERATED ALWAYS AS (coalesce(end_t, ${OPEN})) VIRTUAL);
    INSERT INTO quads_old (rowid, g, s, p, o, h, from_t, end_t, ng) SELECT rowid, g, s, p, o, rowid * 7919, from_t, end_t, ng FROM quads;
    DROP TABLE quads; ALTER TABLE quads_old RENAME TO quads;`);
  db.close();
}

/** Turns a store into the layout before versions kept their runs of row ids: no run columns, an index of every row's start. */
function toVersionsWithoutRuns(file: string): void {
  const db = new Database(file);
  db.exec(`CREATE TABLE versions_old (graph INTEGER NOT NULL, time INTEGER NOT NULL, kind TEXT NOT NULL,
      added INTEGER NOT NULL, removed INTEGER NOT NULL, triples INTEGER NOT NULL, PRIMARY KEY (graph, time)) WITHOUT ROWID;
    INSERT INTO versions_old SELECT graph, time, kind, added, removed, triples FROM versions;
    DROP TABLE versions; ALTER TABLE versions_old RENAME TO versions;
    CREATE INDEX versions_by_time ON versions (time); CREATE INDEX IF NOT EXISTS quads_by_from ON quads (from_t);`);
  db.close();
}

/** Opens the store for writing, capturing what it says on stderr. */
function openSaying(dir: string): { store: VersionArchive; said: string } {
  const said: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => (said.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    return { store: openVersionStore(dir), said: said.join('') };
  } finally {
    process.stderr.write = write;
  }
}

/**
 * A store of an older format: a reader without the right to write reads it as it is; the first writable
 * open rewrites it, says so, and answers as before. Returns that writable store.
 */
async function expectRewritten(dir: string, expected: unknown): Promise<VersionArchive> {
  const reader = openVersionStore(dir, { readonly: true });
  expect(answers(reader)).toEqual(expected);
  await reader.close();
  const { store, said } = openSaying(dir);
  expect(said).toMatch(/rewriting the version index .*versions\.sqlite in its compact format \(once: 8 rows/);
  expect(said).toMatch(/rewrote the version index in \d/);
  expect(answers(store)).toEqual(expected);
  return store;
}

/** A new directory with a store filled and closed, and what it answered. */
async function filledStore(): Promise<{ dir: string; file: string; expected: unknown }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-format-'));
  const a = openVersionStore(dir);
  await fill(a);
  const expected = answers(a);
  a.checkpoint();
  await a.close();
  return { dir, file: path.join(dir, 'versions.sqlite'), expected };
}

describe('version store (SQLite): the compact format of validity intervals', () => {
  it('keeps no hash of a row\'s triple, rewrites a file that has one, and still tells a changed triple from a kept one', async () => {
    const { dir, file, expected } = await filledStore();
    try {
      const columns = (db: Database.Database) => db.prepare('PRAGMA table_info(quads)').all().map((c) => (c as { name: string }).name);
      let db = new Database(file, { readonly: true });
      expect(columns(db)).not.toContain('h');
      db.close();

      toRowHashFormat(file);
      const b = await expectRewritten(dir, expected);
      // A third version of Alice's document: one name changes, the blank node and every other triple stay.
      // The kept triples' intervals go on from their first version (the writer matched them by their text
      // read back from the dictionary); only the name's interval ends.
      const alice3 = `ex:alice a <http://xmlns.com/foaf/0.1/Person> ; <http://xmlns.com/foaf/0.1/name> "Alice L."@en ;
        <http://xmlns.com/foaf/0.1/based_near> <http://places.lod.test/lyon> ; <http://xmlns.com/foaf/0.1/knows> [ <http://xmlns.com/foaf/0.1/name> "Bob" ] .`;
      expect(await b.putVersion(DOC, T0 + 4 * DAY, turtle(alice3))).toMatchObject({ added: 1, removed: 1 });
      const based = b.patternVersions({ s: { variable: 's' }, p: { term: '<http://xmlns.com/foaf/0.1/based_near>' }, o: { variable: 'o' } });
      expect(based.map((v) => v.intervals)).toEqual([[{ from: T0 }]]);
      const bob = b.patternVersions({ s: { variable: 's' }, p: { term: '<http://xmlns.com/foaf/0.1/name>' }, o: { term: '"Bob"' } });
      expect(bob.map((v) => v.intervals)).toEqual([[{ from: T0 }]]);
      await b.close();
      db = new Database(file, { readonly: true });
      expect(columns(db)).not.toContain('h');
      expect(db.prepare('SELECT count(*) AS n FROM quads').get()).toEqual({ n: 9 });
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stores an open end as NULL, and rewrites an old-format file on its first writable open, answers unchanged', async () => {
    const { dir, file, expected } = await filledStore();
    try {
      const db = new Database(file, { readonly: true });
      // Alice's two names and the deleted Lyon rows are closed; the rest hold, and take no end in the record.
      expect(db.prepare('SELECT count(*) AS n FROM quads WHERE end_t IS NOT NULL').get()).toEqual({ n: 3 });
      expect(db.prepare(`SELECT count(*) AS n FROM quads WHERE to_t = ${OPEN}`).get()).toEqual({ n: 5 });
      db.close();

      toVersionsWithoutRuns(file);
      toOldFormat(file);
      const b = await expectRewritten(dir, expected);
      // Writes go on in the new format.
      await b.putVersion(OTHER, T0 + 4 * DAY, turtle('<http://places.lod.test/lyon> <http://www.w3.org/2000/01/rdf-schema#label> "Lyon"@fr .'));
      expect([...b.snapshot(T0 + 4 * DAY, { graphs: [OTHER] })].map((q) => q.o)).toEqual(['"Lyon"@fr']);
      await b.close();
      const after = new Database(file, { readonly: true });
      const indexes = after.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'quads' ORDER BY name").all().map((r) => (r as { name: string }).name);
      // No index of every row's document: the versions' runs find a document's rows (backend.ts graphRuns).
      expect(indexes).toEqual(['quads_by_end', 'quads_by_ng', 'quads_by_op', 'quads_by_p', 'quads_by_sp']);
      after.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives the versions of a file written before runs of row ids theirs, once, and drops the index of row starts', async () => {
    const { dir, file, expected } = await filledStore();
    try {
      const runs = (db: Database.Database) => db.prepare('SELECT graph, time, first_row, last_row FROM versions ORDER BY graph, time').all();
      let db = new Database(file, { readonly: true });
      const made = runs(db);
      db.close();
      // Alice's first version took rows 1-5, Lyon's 6-7, Alice's second 8; the deletion added none.
      expect(made.map((r) => [(r as { first_row: number | null }).first_row, (r as { last_row: number | null }).last_row]).sort()).toEqual([[null, null], [1, 5], [6, 7], [8, 8]]);
      toVersionsWithoutRuns(file);
      const reader = openVersionStore(dir, { readonly: true });
      expect(answers(reader)).toEqual(expected);
      await reader.close();
      const { store, said } = openSaying(dir);
      expect(said).toMatch(/giving the versions of .*versions\.sqlite their runs of row ids \(once\)/);
      expect(answers(store)).toEqual(expected);
      await store.close();
      db = new Database(file, { readonly: true });
      expect(runs(db)).toEqual(made);
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'quads_by_from'").all()).toEqual([]);
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Turns a store into the layout before its dictionary was coded: every term whole, its 48-bit hash beside it. */
function toWholeTerms(file: string): void {
  const db = new Database(file);
  db.function('h48', { deterministic: true }, (nt: unknown) => termHash(String(nt)));
  db.exec(`CREATE TABLE terms_whole (id INTEGER PRIMARY KEY, h INTEGER NOT NULL, nt TEXT NOT NULL);
    INSERT INTO terms_whole SELECT id, h48(nt), nt FROM terms;
    DROP VIEW terms; DROP TABLE term_rows; DROP TABLE term_affixes;
    ALTER TABLE terms_whole RENAME TO terms; CREATE INDEX terms_by_hash ON terms (h);
    UPDATE term_forms SET h = h48(form);`);
  db.close();
}

/** Terms of the wild: namespaces shared and not, IRIs ending in `/` and `#`, datatypes long and short, a lexical form that looks like a datatype. */
const WILD = `@prefix schema: <http://schema.org/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
  <http://people.lod.test/alice#me> a schema:Person ; schema:name "Alice"@en , "Alice"^^xsd:string ;
    schema:url <http://people.lod.test/> , <http://people.lod.test/alice/> , <http://people.lod.test/alice#> ;
    schema:sameAs <urn:isbn:0451450523> , <http://dbpedia.org/resource/Alice_(name)> , <a:b> ;
    schema:birthDate "1990-01-01"^^xsd:date ; schema:height "1.70"^^<http://qudt.org/vocab/unit/M> ;
    schema:description "not a datatype: \\"^^<http://www.w3.org/2001/XMLSchema#integer>" , "x"^^<a:t> ;
    schema:knows [ schema:name "Bob" ; schema:weight "70"^^xsd:integer ] .`;

describe('version store (SQLite): the coded term dictionary', () => {
  it('stores IRIs without their namespace and typed literals without their datatype, and reads every term back whole', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-terms-'));
    try {
      const a = openVersionStore(dir);
      const quads = turtle(WILD, 'http://people.lod.test/alice');
      await a.putVersion(DOC, T0, quads);
      a.flush();
      const lines = [...a.snapshot(T0)].map((q) => `${q.s} ${q.p} ${q.o}`).sort();
      expect(lines).toHaveLength(quads.length);
      expect(lines).toContain('<http://people.lod.test/alice#me> <http://schema.org/description> "not a datatype: \\"^^<http://www.w3.org/2001/XMLSchema#integer>"');
      expect(lines).toContain('<http://people.lod.test/alice#me> <http://schema.org/height> "1.70"^^<http://qudt.org/vocab/unit/M>');
      // A constant that is stored coded is found by its whole text.
      for (const o of ['"1990-01-01"^^<http://www.w3.org/2001/XMLSchema#date>', '<http://people.lod.test/alice/>', '<a:b>', '"x"^^<a:t>']) {
        expect([...a.rowsById(a.matchAt(T0, { o }))].map(([, q]) => q.o)).toEqual([o]);
      }
      await a.close();
      const db = new Database(path.join(dir, 'versions.sqlite'), { readonly: true });
      const affixes = db.prepare('SELECT text FROM term_affixes ORDER BY text').pluck().all();
      expect(affixes).toEqual(expect.arrayContaining(['<http://people.lod.test/', '<http://schema.org/', '^^<http://www.w3.org/2001/XMLSchema#date>', '^^<http://qudt.org/vocab/unit/M>']));
      // Too short to save anything, kept whole: `<a:b>`, `"x"^^<a:t>`; a blank node and plain literals have no affix.
      const whole = db.prepare('SELECT body FROM term_rows WHERE x IS NULL').pluck().all() as string[];
      expect(whole).toEqual(expect.arrayContaining(['<a:b>', '"x"^^<a:t>', '"Bob"', '"Alice"@en', '<urn:isbn:0451450523>']));
      const { stored, text } = db.prepare('SELECT sum(length(body)) AS stored, (SELECT sum(length(nt)) FROM terms) AS text FROM term_rows').get() as { stored: number; text: number };
      expect(stored).toBeLessThan(text * 0.6);
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes back an affix with the transaction that added it, though another writer then takes its id', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-terms-'));
    try {
      const file = path.join(dir, 'versions.sqlite');
      const a = new VersionArchive(file);
      const b = new VersionArchive(file);
      // In SQLite each version is written as it is made: the affix is in the file when the transaction gives up.
      expect(() => a.writeTransaction(() => {
        a.putVersionNow(DOC, T0, turtle('<http://abandoned.lod.test/ns/x> <http://abandoned.lod.test/ns/p> "1" .'));
        throw new Error('abandoned');
      })).toThrow('abandoned');
      b.writeTransaction(() => b.putVersionNow(OTHER, T0, turtle('<http://other.lod.test/ns/y> <http://other.lod.test/ns/q> "2" .')));
      a.writeTransaction(() => a.putVersionNow(DOC, T0 + DAY, turtle('<http://abandoned.lod.test/ns/x> <http://abandoned.lod.test/ns/p> "1" .')));
      expect([...a.snapshot(T0 + DAY)].map((q) => `${q.s} ${q.p} ${q.o}`).sort()).toEqual([
        '<http://abandoned.lod.test/ns/x> <http://abandoned.lod.test/ns/p> "1"',
        '<http://other.lod.test/ns/y> <http://other.lod.test/ns/q> "2"',
      ]);
      await a.close();
      await b.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('codes the dictionary of a file written before, once, on its first writable open; answers unchanged', async () => {
    const { dir, file, expected } = await filledStore();
    try {
      const a = openVersionStore(dir);
      // The count's check of literal forms keeps hashes of its own beside the dictionary's (term-check-memo.ts).
      const FORM = '"1"^^<http://www.w3.org/2001/XMLSchema#integer>';
      expect(a.termCheckMemo!().save(0, { after: 3, exact: true, same: new Map() }, new Map([[FORM, 3]]))).toBe(true);
      await a.close();
      toWholeTerms(file);
      let db = new Database(file, { readonly: true });
      const terms = db.prepare('SELECT id, nt FROM terms ORDER BY id').all();
      expect((db.prepare('SELECT count(*) AS n FROM term_forms').get() as { n: number }).n).toBeGreaterThan(0);
      db.close();
      const reader = openVersionStore(dir, { readonly: true });
      expect(answers(reader)).toEqual(expected);
      await reader.close();
      const { store, said } = openSaying(dir);
      expect(said).toMatch(/coding the term dictionary of .*versions\.sqlite \(once: \d+ terms\)/);
      expect(answers(store)).toEqual(expected);
      expect(store.termCheckMemo!().firstOfForms([FORM])).toEqual([3]);
      await store.putVersion(OTHER, T0 + 4 * DAY, turtle('<http://places.lod.test/lyon> <http://www.w3.org/2000/01/rdf-schema#label> "Lyon"@fr .'));
      expect([...store.snapshot(T0 + 4 * DAY, { graphs: [OTHER] })].map((q) => q.o)).toEqual(['"Lyon"@fr']);
      await store.close();
      db = new Database(file, { readonly: true });
      // Same ids, so no quad row changed; every hash now the term's 32 bits.
      expect(db.prepare('SELECT id, nt FROM terms WHERE id <= ? ORDER BY id').all(terms.length)).toEqual(terms);
      for (const r of db.prepare('SELECT h, nt FROM terms').all() as Array<{ h: number; nt: string }>) expect(r.h).toBe(termHash32(r.nt));
      for (const r of db.prepare('SELECT h, form FROM term_forms').all() as Array<{ h: number; form: string }>) expect(r.h).toBe(termHash32(r.form));
      expect(db.prepare("SELECT type FROM sqlite_master WHERE name = 'terms'").pluck().get()).toBe('view');
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
