import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import pg from 'pg';
import { DataFactory } from 'n3';
import type { Quad } from '@rdfjs/types';
import { PgVersionArchive } from '../../src/query/index.ts';
import { prefetchStatements } from '../../src/versions/pg-store.ts';
import { pgBaseUrl, isolatedSchemaUrl, dropSchema } from '../store/pg.ts';

/**
 * How the versioned store in PostgreSQL writes: a transaction's commit is sent without waiting (the
 * catch-up parses its next batch meanwhile), so its failure must reach the next call and cost nothing;
 * and the read of a batch's open rows must not depend on statistics a bulk load has not gathered yet.
 */
const pgBase = await pgBaseUrl();
const { namedNode, literal, blankNode, quad } = DataFactory;
const T0 = Date.UTC(2026, 0, 1);

/** A document of `n` triples about its resource, a blank node among them, every literal its own. */
function documentQuads(doc: string, n: number, tag: string): Quad[] {
  const s = namedNode(`${doc}#it`);
  const g = namedNode(doc);
  const out = Array.from({ length: n - 1 }, (_v, i) => quad(s, namedNode(`http://vocab.example/p${i % 7}`), literal(`${tag} ${i}`), g));
  out.push(quad(s, namedNode('http://vocab.example/address'), blankNode('a'), g));
  return out;
}

/** The store's rows at `at` as sorted N-Triples-ish lines (blank node labels as stored). */
function snapshotLines(archive: PgVersionArchive, at: number): string[] {
  return [...archive.snapshot(at)].map((r) => `${r.graph} ${r.s} ${r.p} ${r.o}`).sort();
}

async function client(url: string): Promise<pg.Client> {
  const u = new URL(url);
  const schema = u.searchParams.get('schema')!;
  u.searchParams.delete('schema');
  const c = new pg.Client({ connectionString: u.toString(), options: `-c search_path=${schema}` });
  await c.connect();
  return c;
}

describe.skipIf(!pgBase)('versioned store in PostgreSQL: how it writes', () => {
  let url: string;
  let archive: PgVersionArchive;
  let raw: pg.Client;

  beforeEach(async () => {
    url = isolatedSchemaUrl(pgBase!, 'dm_pgw');
    archive = new PgVersionArchive(url);
    raw = await client(url);
  });

  afterEach(async () => {
    await archive?.close().catch(() => undefined);
    await raw?.end();
    await dropSchema(url);
  });

  it('a commit that fails after the writer went on is reported by the next call, and the store goes on without losing a version', async () => {
    const a = 'http://host-a.example/doc/1';
    const b = 'http://host-b.example/doc/2';
    await archive.putVersion(a, T0, documentQuads(a, 12, 'first'));
    archive.settle();
    // Another session takes the id the next new term will get: the next commit's INSERT of terms fails.
    const next = Number((await raw.query("SELECT value FROM vs_meta WHERE key = 'next_term'")).rows[0].value);
    await raw.query("INSERT INTO vs_terms (id, h, nt) VALUES ($1, 0, '\"squatter\"')", [next]);

    // Returns: the commit is on its way, not done.
    archive.writeTransaction(() => archive.putVersionNow(b, T0 + 10, documentQuads(b, 15, 'second')));
    expect(() => archive.versions(a)).toThrow(/duplicate key/);
    // Nothing of the failed transaction is there, and the connection is not left in an aborted transaction.
    expect(archive.versions(b)).toEqual([]);
    expect(archive.versions(a)).toHaveLength(1);

    await raw.query('DELETE FROM vs_terms WHERE id = $1', [next]);
    // The same version again: its terms must be written this time, not taken from ids the failed commit handed out.
    await archive.putVersion(b, T0 + 10, documentQuads(b, 15, 'second'));
    archive.settle();
    const lines = snapshotLines(archive, T0 + 20);
    expect(lines).toHaveLength(12 + 15);
    expect(lines.filter((l) => l.includes('"second '))).toHaveLength(14);
    expect(archive.versions(b)).toMatchObject([{ time: T0 + 10, kind: 'put', added: 15, triples: 15 }]);
  });

  it('reads a batch\'s open rows through the documents\' ids, not by joining every open row, before any statistics exist', async () => {
    const docs = Array.from({ length: 2_000 }, (_v, i) => `http://host-${i % 20}.example/doc/${i}`);
    archive.writeTransaction(() => {
      for (const d of docs) archive.putVersionNow(d, T0, documentQuads(d, 10, d));
    });
    archive.settle();
    // A batch as the catch-up prefetches it: a few known documents among new ones.
    const known = docs.slice(100, 110);
    const batch = [...known, ...Array.from({ length: 300 }, (_v, i) => `http://host-${i % 20}.example/doc/new-${i}`)].map((d) => `<${d}>`);
    const [, openRows] = prefetchStatements(batch);
    await raw.query('BEGIN');
    // no SET here: the plan must be right whatever the planner's settings
    const plan = (await raw.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${openRows!.sql}`, openRows!.params)).rows[0]['QUERY PLAN'][0].Plan;
    await raw.query('ROLLBACK');
    let quadRowsRead = 0;
    const walk = (node: { 'Relation Name'?: string; 'Actual Rows': number; 'Actual Loops': number; Plans?: unknown[] }) => {
      if (node['Relation Name']?.startsWith('vs_quads')) quadRowsRead += node['Actual Rows'] * node['Actual Loops'];
      for (const child of node.Plans ?? []) walk(child as typeof node);
    };
    walk(plan);
    // The known documents' 10 open rows each, not the 20,000 open rows of the store.
    expect(quadRowsRead).toBe(known.length * 10);
    const rows = await raw.query(openRows!.sql, openRows!.params);
    expect(rows.rows).toHaveLength(known.length * 10);
  });

  it('drops the hash an older layout kept in each row, and a changed version still keeps the unchanged rows\' intervals', async () => {
    const doc = 'http://host-1.example/doc/1';
    const first = documentQuads(doc, 12, 'v1');
    archive.writeTransaction(() => archive.putVersionNow(doc, T0, first));
    archive.settle();
    await archive.close();
    // The layout before: each row kept a hash of its triple.
    await raw.query('ALTER TABLE vs_quads ADD COLUMN h bigint NOT NULL DEFAULT 0');
    archive = new PgVersionArchive(url);
    const hashColumn = async () => (await raw.query("SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'vs_quads' AND column_name = 'h'")).rowCount;
    expect(await hashColumn()).toBe(0);
    // One literal changes; the writer matches the eleven others (the blank node's among them) by their text.
    const second = [...first.slice(1), quad(first[0]!.subject, first[0]!.predicate, literal('v2 changed'), first[0]!.graph)];
    let change: { added: number; removed: number } | undefined;
    archive.writeTransaction(() => { change = archive.putVersionNow(doc, T0 + 1000, second); });
    archive.settle();
    expect(change).toEqual({ added: 1, removed: 1 });
    expect(snapshotLines(archive, T0 + 1000)).toHaveLength(12);
    expect((await raw.query('SELECT count(*)::int AS n FROM vs_quads')).rows[0].n).toBe(13);
  });

  it('gives the versions of an older layout their runs of row ids, once, and the diff finds the rows born in a span by them', async () => {
    const docs = ['http://host-1.example/doc/1', 'http://host-2.example/doc/2'];
    archive.writeTransaction(() => {
      for (const [i, doc] of docs.entries()) archive.putVersionNow(doc, T0 + i, documentQuads(doc, 12, 'v1'));
      archive.putVersionNow(docs[0]!, T0 + 2000, documentQuads(docs[0]!, 12, 'v2'));
    });
    archive.settle();
    const expected = { delta: archive.delta(T0 + 1, T0 + 2000), snapshot: snapshotLines(archive, T0 + 1) };
    const runs = async () => (await raw.query('SELECT graph, time, first_row::int AS a, last_row::int AS b FROM vs_versions ORDER BY time')).rows;
    const made = await runs();
    expect(made.map((r) => [r.a, r.b])).toEqual([[1, 12], [13, 24], [25, 35]]);
    await archive.close();
    // The layout before: no runs, an index of every row's start.
    await raw.query('ALTER TABLE vs_versions DROP COLUMN first_row, DROP COLUMN last_row; CREATE INDEX vs_quads_by_from ON vs_quads (from_t)');
    // A reader that may not change it reads it as it is, through the index of row starts.
    const reader = new PgVersionArchive(url, { readonly: true });
    try {
      expect(reader.delta(T0 + 1, T0 + 2000)).toEqual(expected.delta);
      expect(snapshotLines(reader, T0 + 1)).toEqual(expected.snapshot);
    } finally {
      await reader.close();
    }
    expect((await raw.query("SELECT to_regclass('vs_quads_by_from')::text AS i")).rows[0].i).not.toBeNull();
    archive = new PgVersionArchive(url);
    expect(await runs()).toEqual(made);
    expect((await raw.query("SELECT to_regclass('vs_quads_by_from')::text AS i")).rows[0].i).toBeNull();
    expect(archive.delta(T0 + 1, T0 + 2000)).toEqual(expected.delta);
    expect(expected.delta.added).toHaveLength(11);
    expect(snapshotLines(archive, T0 + 1)).toEqual(expected.snapshot);
  });
});
