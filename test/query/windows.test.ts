/**
 * Ver(Q) and Change(Q) over a window [--from, --to]: the state at `from` is the baseline, changes are
 * those strictly inside (from, to], and an interval that goes on past `to` is not printed as "now".
 * Each case here failed before the window semantics were fixed (#13).
 */
import { describe, it, expect, afterEach } from 'vitest';
import { tempArchive, turtle, DAY, T0 } from './helpers.ts';
import { queryVersions, queryChanges } from '../../src/query/index.ts';
import { queryCommand } from '../../src/cli/commands/query.ts';

const DOC = 'http://example.org/people.ttl';
const NAMES = 'SELECT ?s ?n WHERE { ?s <http://xmlns.com/foaf/0.1/name> ?n }';
const iso = (ms: number) => new Date(ms).toISOString();
const name = (s: string, n: string) => `ex:${s} <http://xmlns.com/foaf/0.1/name> "${n}" .`;

/** x from T0 to T0+4d; y from T0+2d to T0+7d; z from T0+6d on. */
async function fixture() {
  const t = tempArchive();
  await t.archive.putVersion(DOC, T0, turtle(name('x', 'X')));
  await t.archive.putVersion(DOC, T0 + 2 * DAY, turtle(name('x', 'X') + name('y', 'Y')));
  await t.archive.putVersion(DOC, T0 + 4 * DAY, turtle(name('y', 'Y')));
  await t.archive.putVersion(DOC, T0 + 6 * DAY, turtle(name('y', 'Y') + name('z', 'Z')));
  await t.archive.putVersion(DOC, T0 + 7 * DAY, turtle(name('z', 'Z')));
  return t;
}

const subjectOf = (answer: unknown) => ((answer as Record<string, { value: string }>).s.value).replace('http://example.org/', '');

describe('version queries over a window', () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it('Ver(Q): an answer holding at --from starts the window (at or before it), one going on past --to is not "now"', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const ver = await queryVersions(t.archive, NAMES, { from: T0 + DAY, to: T0 + 5 * DAY });
    const by = new Map(ver.map((v) => [subjectOf(v.answer), v]));
    expect([...by.keys()].sort()).toEqual(['x', 'y']);
    // x held before the window and ended inside it: dated from the window's start, flagged as earlier.
    expect(by.get('x')!.intervals).toEqual([{ from: T0 + DAY, to: T0 + 4 * DAY, clippedFrom: true }]);
    // y began inside and ended after the window (at T0+7d): not open "now".
    expect(by.get('y')!.intervals).toEqual([{ from: T0 + 2 * DAY, to: T0 + 5 * DAY, clippedTo: true }]);
  });

  it('Ver(Q): an answer that held across the whole window is there, with no change point inside it', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const ver = await queryVersions(t.archive, NAMES, { from: T0 + DAY / 2, to: T0 + DAY + DAY / 2 });
    expect(ver.map((v) => [subjectOf(v.answer), v.intervals])).toEqual([
      ['x', [{ from: T0 + DAY / 2, to: T0 + DAY + DAY / 2, clippedFrom: true, clippedTo: true }]],
    ]);
  });

  it('Ver(Q): an interval still open now is open, even with --to before now and later changes elsewhere', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const ver = await queryVersions(t.archive, NAMES, { from: T0 + 6 * DAY, to: T0 + 6 * DAY + 1 });
    const z = ver.find((v) => subjectOf(v.answer) === 'z')!;
    // A change after --to (y's removal at T0+7d) means the window cannot tell whether z held on: clipped.
    expect(z.intervals).toEqual([{ from: T0 + 6 * DAY, to: T0 + 6 * DAY + 1, clippedFrom: true, clippedTo: true }]);
    const open = await queryVersions(t.archive, NAMES, { from: T0 + 6 * DAY, to: T0 + 30 * DAY });
    expect(open.find((v) => subjectOf(v.answer) === 'z')!.intervals).toEqual([{ from: T0 + 6 * DAY, clippedFrom: true }]);
  });

  it('Change(Q): the state at --from is the baseline, so no spurious additions at the first change point', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const changes = await queryChanges(t.archive, NAMES, { from: T0 + DAY, to: T0 + 5 * DAY });
    expect(changes).toEqual([
      { time: T0 + 2 * DAY, added: 1, removed: 0, answers: 2 },
      { time: T0 + 4 * DAY, added: 0, removed: 1, answers: 1 },
    ]);
    // A change exactly at --from is the baseline, not a change inside the window.
    expect((await queryChanges(t.archive, NAMES, { from: T0 + 2 * DAY })).map((c) => c.time)).toEqual([T0 + 4 * DAY, T0 + 6 * DAY, T0 + 7 * DAY]);
  });

  it('the CLI prints clipped intervals truthfully in text and --json', async () => {
    const t = await fixture();
    await t.archive.close();
    cleanup = t.cleanup;
    const flags = { data: t.dir, versions: true, from: iso(T0 + DAY), to: iso(T0 + 5 * DAY) };
    const text = await queryCommand(NAMES, flags);
    expect(text).not.toContain('now');
    expect(text).toContain(`[${iso(T0 + DAY)} or earlier, ${iso(T0 + 4 * DAY)})`);
    expect(text).toContain(`[${iso(T0 + 2 * DAY)}, still at ${iso(T0 + 5 * DAY)}]`);
    const json = JSON.parse(await queryCommand(NAMES, { ...flags, json: true }));
    const y = json.find((v: { answer: unknown }) => subjectOf(v.answer) === 'y');
    expect(y.intervals).toEqual([{ from: iso(T0 + 2 * DAY), to: iso(T0 + 5 * DAY), clippedTo: true }]);
    const changes = await queryCommand(NAMES, { data: t.dir, changes: true, from: iso(T0 + DAY), to: iso(T0 + 5 * DAY) });
    expect(changes).toBe(`${iso(T0 + 2 * DAY)}  +1 -0  (2 answers)\n${iso(T0 + 4 * DAY)}  +0 -1  (1 answer)\n2 changes\n`);
  });

  it('the CLI\'s triple-pattern --versions lists only the intervals that meet the window', async () => {
    const t = await fixture();
    await t.archive.close();
    cleanup = t.cleanup;
    const json = JSON.parse(await queryCommand('?s <http://xmlns.com/foaf/0.1/name> ?n', { data: t.dir, versions: true, json: true, from: iso(T0 + 5 * DAY), to: iso(T0 + 8 * DAY) }));
    const subjects = json.map((v: { quad: { s: string } }) => v.quad.s).sort();
    expect(subjects).toEqual(['<http://example.org/y>', '<http://example.org/z>']);
    const y = json.find((v: { quad: { s: string } }) => v.quad.s === '<http://example.org/y>');
    expect(y.versions).toEqual([iso(T0 + 6 * DAY)]); // the versions inside the window only
  });
});
