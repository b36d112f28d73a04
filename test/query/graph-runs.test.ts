/**
 * SQLite finds a document's rows through the runs of row ids of its versions (backend.ts graphRuns), with no
 * index of every row's document. The hard case for that: a feed whose items change wholly at every version
 * while a few triples hold from the first, its runs interleaved with other documents' rows. Every read by
 * document (a snapshot of it, a match, a diff, a triple's versions) must give what its history says
 * at every instant, the writer must find every open row (its added and removed counts), and none of those
 * reads may scan the table.
 */
import Database from 'better-sqlite3';
import type { Quad } from '@rdfjs/types';
import { describe, expect, it } from 'vitest';
import { tempArchive, turtle } from './helpers.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const FEED = 'http://feed.lod.test/news.ttl';
const OTHERS = ['http://a.lod.test/doc.ttl', 'http://b.lod.test/doc.ttl'];
const VERSIONS = 24;

/** The feed at version v: three triples that never change, one that changes every fifth version, ten items of that version. */
function feed(v: number): string {
  const items = Array.from({ length: 10 }, (_, i) => `<#item${v}-${i}> ex:title "Item ${i} of edition ${v}"@en ; ex:in <#feed> .`).join('\n');
  return `<#feed> a ex:Feed ; ex:title "The news" ; ex:publisher <http://org.lod.test/press> ; ex:edition ${Math.floor(v / 5)} .\n${items}`;
}
const other = (doc: string, v: number) => `<${doc}#it> ex:seen ${v} ; ex:label "A document beside the feed" .`;

const line = (q: Quad) => `${q.subject.value} ${q.predicate.value} ${q.object.termType === 'Literal' ? JSON.stringify(q.object.value) : q.object.value}`;
const rowLine = (r: { s: string; p: string; o: string }) => `${r.s.replace(/^<|>$/g, '')} ${r.p.replace(/^<|>$/g, '')} ${r.o.startsWith('"') ? JSON.stringify(r.o.match(/^"((?:[^"\\]|\\.)*)"/)![1]) : r.o.replace(/^<|>$/g, '')}`;

describe('a document read through the runs of its versions (SQLite)', () => {
  it('answers every read by document as its history says, at every instant, without a scan of the rows', async () => {
    const { archive, dir, cleanup } = tempArchive();
    const statements: string[] = [];
    const prepare = Database.prototype.prepare;
    Database.prototype.prepare = function (this: Database.Database, sql: string) {
      if (sql.includes('r.rowid BETWEEN v.first_row AND v.last_row')) statements.push(sql);
      return prepare.call(this, sql);
    } as typeof prepare;
    try {
      const history: Array<Set<string>> = [];
      for (let v = 0; v < VERSIONS; v++) {
        const t = T0 + v * HOUR;
        // Other documents' rows before and after each run of the feed's.
        await archive.putVersion(OTHERS[0]!, t, turtle(other(OTHERS[0]!, v)));
        const quads = turtle(feed(v), FEED);
        const now = new Set(quads.map(line));
        const before = history[v - 1] ?? new Set<string>();
        const counts = await archive.putVersion(FEED, t, quads);
        // The writer found every row that held: what it added and removed is the difference of the two graphs.
        expect(counts).toEqual({ added: [...now].filter((x) => !before.has(x)).length, removed: [...before].filter((x) => !now.has(x)).length });
        history.push(now);
        await archive.putVersion(OTHERS[1]!, t + 1, turtle(other(OTHERS[1]!, v)));
      }
      archive.flush();

      const feedTerm = `<${FEED}>`;
      for (let v = 0; v < VERSIONS; v++) {
        for (const t of [T0 + v * HOUR, T0 + v * HOUR + HOUR / 2]) {
          const expected = [...history[v]!].sort();
          expect([...archive.snapshot(t, { graphs: [FEED] })].map(rowLine).sort()).toEqual(expected);
          expect(archive.matchAt(t, { graph: feedTerm })).toHaveLength(expected.length);
          // With a constant beside the graph: the feed's title and its items' titles.
          expect(archive.matchAt(t, { graph: feedTerm, p: '<http://example.org/title>' })).toHaveLength(11);
        }
      }
      // A diff of the feed alone, across many versions: the first and last editions' items, the edition number.
      const d = archive.delta(T0 + 2 * HOUR, T0 + (VERSIONS - 1) * HOUR, { graphs: [FEED] });
      const [a, b] = [history[2]!, history[VERSIONS - 1]!];
      expect(d.added.map(rowLine).sort()).toEqual([...b].filter((x) => !a.has(x)).sort());
      expect(d.removed.map(rowLine).sort()).toEqual([...a].filter((x) => !b.has(x)).sort());
      // A triple that held from the first version: one interval, in every version of the feed.
      const stable = archive.patternVersions({ s: { term: `<${FEED}#feed>` }, p: { term: '<http://example.org/title>' }, o: { variable: 'o' }, graph: { term: feedTerm } });
      expect(stable).toHaveLength(1);
      expect(stable[0]!.versions).toHaveLength(VERSIONS);

      // Each of those reads sought the rows by their ids, none scanned the table.
      expect(statements.length).toBeGreaterThan(0);
      const db = new Database(`${dir}/versions.sqlite`, { readonly: true });
      try {
        const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'quads'").pluck().all();
        expect(indexes).not.toContain('quads_by_graph');
        for (const sql of new Set(statements)) {
          const params = Array((sql.match(/\?/g) ?? []).length).fill(0); // values do not change the plan: no statistics
          const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params).map((r) => (r as { detail: string }).detail);
          expect(plan.filter((p) => /^SCAN (q|r)\b/.test(p)), `${sql}\n${plan.join('\n')}`).toEqual([]);
        }
      } finally {
        db.close();
      }
    } finally {
      Database.prototype.prepare = prepare;
      await cleanup();
    }
  });

  it('reads two documents at once, one statement text for both, each its own rows', async () => {
    const { archive, cleanup } = tempArchive();
    try {
      for (const [i, doc] of OTHERS.entries()) await archive.putVersion(doc, T0 + i, turtle(other(doc, i)));
      archive.flush();
      // The first document's read is open (its statement mid-iteration) when the second one's, the same SQL, starts.
      const first = archive.snapshot(T0 + HOUR, { graphs: [OTHERS[0]!] })[Symbol.iterator]();
      const head = first.next();
      const second = [...archive.snapshot(T0 + HOUR, { graphs: [OTHERS[1]!] })];
      const rest = [head.value!, ...{ [Symbol.iterator]: () => first }];
      expect(rest.map((r) => r.graph)).toEqual([OTHERS[0], OTHERS[0]]);
      expect(second.map((r) => r.graph)).toEqual([OTHERS[1], OTHERS[1]]);
      expect(archive.delta(T0 - 1, T0 + HOUR, { graphs: [OTHERS[1]!] }).added).toHaveLength(2);
    } finally {
      await cleanup();
    }
  });
});
