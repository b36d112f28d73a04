import { describe, it, expect, afterEach } from 'vitest';
import { turtle, DAY, T0 } from './helpers.ts';
import { ntripleLine } from '../../src/query/index.ts';
import { VERSION_BACKENDS } from './version-backends.ts';

const DOC = 'http://example.org/doc.ttl';
const OTHER = 'http://example.org/other.ttl';

const lines = (rows: Iterable<{ s: string; p: string; o: string }>): string[] => [...rows].map((r) => ntripleLine({ graph: '', ...r })).sort();

// One contract, both backends (src/versions/backend.ts): SQLite and PostgreSQL must give the same answers.
describe.each(VERSION_BACKENDS)('versioned store on $name', (backend) => {
const tempArchive = () => backend.make();

describe.skipIf(backend.skip)('snapshots over time', () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it('answers the state before, at, between and after versions, per document graph', async () => {
    const t = tempArchive(); cleanup = t.cleanup;
    const a = t.archive;
    expect(await a.putVersion(DOC, T0, turtle('ex:a ex:p 1 . ex:a ex:q "x" .'))).toEqual({ added: 2, removed: 0 });
    expect(await a.putVersion(DOC, T0 + 10 * DAY, turtle('ex:a ex:p 2 . ex:a ex:q "x" .'))).toEqual({ added: 1, removed: 1 });
    await a.putVersion(OTHER, T0 + 5 * DAY, turtle('ex:b ex:p ex:a .'));

    expect(lines(a.snapshot(T0 - 1))).toEqual([]);
    expect(lines(a.snapshot(T0, { graphs: [DOC] }))).toEqual([
      '<http://example.org/a> <http://example.org/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .',
      '<http://example.org/a> <http://example.org/q> "x" .',
    ]);
    const between = [...a.snapshot(T0 + 7 * DAY)];
    expect(between.map((q) => q.graph).sort()).toEqual([DOC, DOC, OTHER]);
    expect(lines(a.snapshot(T0 + 10 * DAY, { graphs: [DOC] }))[0]).toContain('"2"^^');
    expect(lines(a.snapshot(T0 + 100 * DAY))).toHaveLength(3);
    expect(a.versions(DOC).map((v) => [v.time, v.added, v.removed, v.triples])).toEqual([[T0, 2, 0, 2], [T0 + 10 * DAY, 1, 1, 2]]);
  });

  it('an identical re-fetch is a version with an empty delta; time cannot go back', async () => {
    const t = tempArchive(); cleanup = t.cleanup;
    await t.archive.putVersion(DOC, T0, turtle('ex:a ex:p 1 .'));
    expect(await t.archive.putVersion(DOC, T0 + DAY, turtle('ex:a ex:p 1 .'))).toEqual({ added: 0, removed: 0 });
    expect(t.archive.versions(DOC).map((v) => [v.added, v.removed, v.triples])).toEqual([[1, 0, 1], [0, 0, 1]]);
    expect(t.archive.stats().rows).toBe(1);
    await expect(t.archive.putVersion(DOC, T0 - DAY, turtle('ex:a ex:p 3 .'))).rejects.toThrow(/before the graph's last version/);
  });

  it('a second version at the same instant replaces the first', async () => {
    const t = tempArchive(); cleanup = t.cleanup;
    await t.archive.putVersion(DOC, T0, turtle('ex:a ex:p 1 .'));
    await t.archive.putVersion(DOC, T0 + DAY, turtle('ex:a ex:p 2 .'));
    expect(await t.archive.putVersion(DOC, T0 + DAY, turtle('ex:a ex:p 3 .'))).toEqual({ added: 1, removed: 1 });
    expect(lines(t.archive.snapshot(T0 + DAY))).toEqual(['<http://example.org/a> <http://example.org/p> "3"^^<http://www.w3.org/2001/XMLSchema#integer> .']);
    expect(t.archive.versions(DOC)).toHaveLength(2);
    expect(t.archive.stats().rows).toBe(2); // the replaced row left no trace
  });

  it('a deleted graph is empty from its deletion on, still there before, and can come back', async () => {
    const t = tempArchive(); cleanup = t.cleanup;
    const a = t.archive;
    await a.putVersion(DOC, T0, turtle('ex:a ex:p 1 .'));
    await a.deleteGraph(DOC, T0 + DAY);
    expect(lines(a.snapshot(T0 + DAY - 1))).toHaveLength(1);
    expect(lines(a.snapshot(T0 + DAY))).toEqual([]);
    expect(a.graphs()).toMatchObject([{ graph: DOC, deleted: true, triples: 0, versions: 2 }]);
    await a.putVersion(DOC, T0 + 2 * DAY, turtle('ex:a ex:p 1 .'));
    expect(lines(a.snapshot(T0 + 2 * DAY))).toHaveLength(1);
    expect(a.versions(DOC).map((v) => v.kind)).toEqual(['put', 'deleted', 'put']);
    await a.deleteGraph('http://example.org/never-seen', T0);
    expect(a.graphs()).toHaveLength(1);
  });

  it('blank nodes: stable labels for an isomorphic re-fetch, never shared across documents or merged within one', async () => {
    const t = tempArchive(); cleanup = t.cleanup;
    const a = t.archive;
    await a.putVersion(DOC, T0, turtle('ex:a ex:knows [ ex:name "A" ], [ ex:name "B" ] .'));
    // The parser names blank nodes afresh: an isomorphic version is no change.
    expect(await a.putVersion(DOC, T0 + DAY, turtle('ex:a ex:knows [ ex:name "B" ], [ ex:name "A" ] .'))).toEqual({ added: 0, removed: 0 });
    // Same labels in the input, other document: other nodes.
    await a.putVersion(OTHER, T0, turtle('ex:a ex:knows [ ex:name "A" ] .'));
    const docBlank = [...a.snapshot(T0, { graphs: [DOC] })].filter((q) => q.p === '<http://example.org/knows>').map((q) => q.o);
    const otherBlank = [...a.snapshot(T0, { graphs: [OTHER] })].filter((q) => q.p === '<http://example.org/knows>').map((q) => q.o);
    expect(new Set(docBlank).size).toBe(2);
    expect(docBlank).not.toContain(otherBlank[0]);
    // One blank node changing touches only its own triples.
    const r = await a.putVersion(DOC, T0 + 2 * DAY, turtle('ex:a ex:knows [ ex:name "A" ], [ ex:name "C" ] .'));
    expect(r).toEqual({ added: 2, removed: 2 });
    // Two indistinguishable blank nodes stay two nodes.
    await a.putVersion(OTHER, T0 + DAY, turtle('ex:x ex:p [ ex:q "same" ], [ ex:q "same" ] .'));
    expect([...a.snapshot(T0 + DAY, { graphs: [OTHER] })]).toHaveLength(4);
  });

  it('survives reopening the file (read-only too)', async () => {
    const t = tempArchive(); cleanup = t.cleanup;
    await t.archive.putVersion(DOC, T0, turtle('ex:a ex:p "é\\n\\"q\\"" .'));
    await t.archive.close();
    const ro = t.reopen({ readonly: true });
    expect(lines(ro.snapshot(T0))).toEqual(['<http://example.org/a> <http://example.org/p> "é\\n\\"q\\"" .']);
  });
});

describe.skipIf(backend.skip)('deltas and version queries', () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it('Diff gives what was added and removed between two instants, per document or archive-wide', async () => {
    const t = tempArchive(); cleanup = t.cleanup;
    const a = t.archive;
    await a.putVersion(DOC, T0, turtle('ex:a ex:p 1 . ex:a ex:q "keep" .'));
    await a.putVersion(OTHER, T0, turtle('ex:b ex:p 1 .'));
    await a.putVersion(DOC, T0 + DAY, turtle('ex:a ex:p 2 . ex:a ex:q "keep" .'));
    await a.putVersion(DOC, T0 + 2 * DAY, turtle('ex:a ex:p 1 . ex:a ex:q "keep" .')); // back to 1
    await a.deleteGraph(OTHER, T0 + 2 * DAY);

    const d1 = a.delta(T0, T0 + DAY, { graphs: [DOC] });
    expect(lines(d1.added)).toEqual(['<http://example.org/a> <http://example.org/p> "2"^^<http://www.w3.org/2001/XMLSchema#integer> .']);
    expect(lines(d1.removed)).toEqual(['<http://example.org/a> <http://example.org/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .']);
    // Removed and re-added in between: no change between the two ends.
    const d2 = a.delta(T0, T0 + 2 * DAY, { graphs: [DOC] });
    expect(d2.added).toEqual([]);
    expect(d2.removed).toEqual([]);
    const all = a.delta(T0, T0 + 2 * DAY);
    expect(all.added).toEqual([]);
    expect(all.removed.map((q) => q.graph)).toEqual([OTHER]);
    expect(() => a.delta(T0 + DAY, T0)).toThrow(/before/);
  });

  it('finds the rows born in a span through its versions, whatever order their times were written in', async () => {
    const t = tempArchive(); cleanup = t.cleanup;
    const a = t.archive;
    const p = (n: number) => `<http://example.org/a> <http://example.org/p> "${n}"^^<http://www.w3.org/2001/XMLSchema#integer> .`;
    await a.putVersion(DOC, T0, turtle('ex:a ex:p 1 .'));
    // Written before the version of an earlier instant: the rows born by T0 + DAY come after rows born later.
    await a.putVersion(OTHER, T0 + 2 * DAY, turtle('ex:b ex:p 7 . ex:b ex:p 8 .'));
    await a.putVersion(DOC, T0 + DAY, turtle('ex:a ex:p 2 . ex:a ex:q 5 .'));
    await a.putVersion('http://example.org/third', T0 + DAY, turtle('ex:c ex:p 9 .'));
    // A second put of the same instant keeps one row of the first, whose rows lie before the third document's,
    // drops another and adds one after it: the version's rows are both.
    expect(await a.putVersion(DOC, T0 + DAY, turtle('ex:a ex:p 2 . ex:a ex:p 3 .'))).toEqual({ added: 2, removed: 1 });
    // More versions after T0 + DAY than by it: a read with no constant at T0 + DAY is bounded by row id.
    for (let i = 0; i < 4; i++) await a.putVersion(`http://example.org/later/${i}`, T0 + 3 * DAY, turtle(`ex:later${i} ex:p ${10 + i} .`));
    a.flush();
    const d = a.delta(T0, T0 + DAY, { graphs: [DOC] });
    expect(lines(d.added)).toEqual([p(2), p(3)]);
    expect(lines(d.removed)).toEqual([p(1)]);
    expect(lines(a.delta(T0 + DAY, T0 + 2 * DAY).added)).toEqual(lines(a.snapshot(T0 + 2 * DAY, { graphs: [OTHER] })));
    expect(lines(a.delta(T0, T0 + DAY).added)).toHaveLength(3);
    expect(lines(a.snapshot(T0 + DAY))).toEqual([p(2), p(3), '<http://example.org/c> <http://example.org/p> "9"^^<http://www.w3.org/2001/XMLSchema#integer> .']);
    // A count with no constant reads the rows born by T (the versions' runs bound their ids).
    const subjects = { distinct: ['s'] as Array<'s'>, inDocument: false };
    expect([T0 - 1, T0, T0 + DAY, T0 + 2 * DAY, T0 + 3 * DAY].map((at) => a.countAt(at, {}, subjects))).toEqual([0, 1, 2, 3, 7]);
    expect(a.countAt(T0 + DAY, {}, { inDocument: false, distinct: ['o'] })).toBe(3);
    // A fragment's pages of every triple at T, read under the same bound.
    const page = (at: number, offset: number) => a.triplesAt(at, {}, { limit: 2, offset }).map((r) => r.o);
    expect([...page(T0 + DAY, 0), ...page(T0 + DAY, 2)].sort()).toEqual(['2', '3', '9'].map((n) => `"${n}"^^<http://www.w3.org/2001/XMLSchema#integer>`));
    expect(page(T0 + DAY, 3)).toEqual([]);
  });

  it('Ver(pattern) gives each matching triple with its intervals and the versions it holds in', async () => {
    const t = tempArchive(); cleanup = t.cleanup;
    const a = t.archive;
    await a.putVersion(DOC, T0, turtle('ex:a ex:p 1 . ex:a ex:q ex:a .'));
    await a.putVersion(DOC, T0 + DAY, turtle('ex:a ex:p 2 . ex:a ex:q ex:a .'));
    await a.putVersion(DOC, T0 + 2 * DAY, turtle('ex:a ex:p 1 . ex:a ex:q ex:b .'));
    const ver = a.patternVersions({ s: { term: '<http://example.org/a>' }, p: { term: '<http://example.org/p>' }, o: { variable: 'o' } });
    const one = ver.find((v) => v.quad.o.startsWith('"1"'))!;
    expect(one.intervals).toEqual([{ from: T0, to: T0 + DAY }, { from: T0 + 2 * DAY }]);
    expect(one.versions).toEqual([T0, T0 + 2 * DAY]);
    expect(ver.find((v) => v.quad.o.startsWith('"2"'))!.versions).toEqual([T0 + DAY]);
    // A repeated variable must bind equal terms.
    const loops = a.patternVersions({ s: { variable: 'x' }, p: { variable: 'p' }, o: { variable: 'x' } });
    expect(loops.map((v) => v.quad.o)).toEqual(['<http://example.org/a>']);
    expect(loops[0].versions).toEqual([T0, T0 + DAY]);
    expect(a.patternVersions({ s: { term: '<http://example.org/unknown>' }, p: { variable: 'p' }, o: { variable: 'o' } })).toEqual([]);
  });
});
});
