import { describe, it, expect } from 'vitest';
import { DAY } from '../../src/schedule/types.ts';
import { DEFAULT_BOUNDS } from '../../src/schedule/bounds.ts';
import { strategies } from '../../src/schedule/strategies/index.ts';
import { historiesFromRecords, simulate } from '../../src/lab/recrawl/index.ts';
import { directoryOf, massEdits, simulateGoldWake } from '../../src/lab/recrawl/oracle-wake.ts';

const T0 = Date.UTC(2020, 0, 1);
const day = (d: number) => T0 + d * DAY;

// Folder a/: five pages, all rewritten on day 10 and day 100. Folder b/: five pages, one edited on those days.
const records = [
  ...Array.from({ length: 5 }, (_, i) => ({ id: `a/${i}.md`, created: T0, end: day(400), changes: [day(10), day(100)] })),
  ...Array.from({ length: 5 }, (_, i) => ({ id: `b/${i}.md`, created: T0, end: day(400), changes: i === 0 ? [day(10), day(100)] : [day(50 + i)] })),
];
const h = historiesFromRecords(records);
const total = (a: Int32Array) => a.reduce((x, y) => x + y, 0);

describe('mass-edit wake-ups (lab oracle)', () => {
  it('finds the edits that touched a whole folder, not those that touched one page of it', () => {
    expect(directoryOf('pages/common/tar.md')).toBe('pages/common');
    expect(directoryOf('README')).toBe('');
    const edits = massEdits(h, 0.9, 3);
    expect(edits.map((e) => e.time)).toEqual([day(10), day(100)]);
    for (const e of edits) expect(e.docs.map((d) => h.ids[d])).toEqual(['a/0.md', 'a/1.md', 'a/2.md', 'a/3.md', 'a/4.md']);
  });

  it('without edits it is gold; waking a folder the day after its edits splits changes gold merges', () => {
    const gold = simulate(h, strategies.gold!, DEFAULT_BOUNDS);
    const none = simulateGoldWake(h, [], DAY, DEFAULT_BOUNDS);
    expect(Array.from(none.downloads)).toEqual(Array.from(gold.downloads));
    expect(Array.from(none.captured)).toEqual(Array.from(gold.captured));
    // gold checks a/ every 200 days: day 200 sees both edits as one change, day 400 nothing new.
    const woken = simulateGoldWake(h, massEdits(h, 0.9, 3), DAY, DEFAULT_BOUNDS);
    for (let d = 0; d < 5; d++) {
      expect([gold.downloads[d], gold.captured[d]]).toEqual([2, 1]);
      // Woken on day 11 (captures day 10) and day 101 (captures day 100), then day 301 sees nothing.
      expect([woken.downloads[d], woken.captured[d]]).toEqual([3, 2]);
    }
    expect(total(woken.captured.subarray(5))).toBe(total(gold.captured.subarray(5))); // b/ is never woken
  });
});
