import { describe, it, expect } from 'vitest';
import { entryDate, filesOf, historyRecords, parseChangeLog } from '../../src/lab/recrawl/changelog.ts';
import { historiesFromRecords } from '../../src/lab/recrawl/index.ts';

const LOG = `2022-04-15  Pádraig Brady  <P@draigBrady.com>

	version 9.1
	* NEWS: Record release date.

2021-03-02  Paul Eggert  <eggert@cs.ucla.edu>

	cp: fix a bug
	* src/copy.c (copy_reg): Handle it.
	* src/cp.c, tests/cp/a.sh: Adjust.

2021-03-02  Jim Meyering  <jim@meyering.net>

	* src/copy.c: Second entry the same day counts once.

Mon Dec 12 10:00:00 1994  Old Style  (old@example.org)

	* src/copy.c (main): Created.
	* Makefile.in: tweak
`;

describe('GNU ChangeLogs as change histories', () => {
  it('reads entry dates in both header styles and the files an entry names', () => {
    expect(entryDate('2021-03-02  Paul Eggert  <eggert@cs.ucla.edu>')).toBe(Date.UTC(2021, 2, 2));
    expect(entryDate('Mon Dec 12 10:00:00 1994  Old Style  (old@example.org)')).toBe(Date.UTC(1994, 11, 12));
    expect(entryDate('\t* src/copy.c: x')).toBeNaN();
    expect(filesOf('\t* src/cp.c, tests/cp/a.sh: Adjust.')).toEqual(['src/cp.c', 'tests/cp/a.sh']);
    expect(filesOf('\t* src/copy.c (copy_reg): Handle it.')).toEqual(['src/copy.c']);
    expect(filesOf('\tversion 9.1')).toEqual([]);
  });

  it('every file, folder and the ChangeLog itself is a document; a day counts once; only 3 years or more', () => {
    const parsed = parseChangeLog(LOG, 'coreutils');
    const days = (id: string) => parsed.files.find((f) => f.id === id)?.days.map((d) => new Date(d).toISOString().slice(0, 10));
    expect(days('coreutils/src/copy.c')).toEqual(['1994-12-12', '2021-03-02']);
    expect(days('coreutils/src/')).toEqual(['1994-12-12', '2021-03-02']);
    expect(days('coreutils/ChangeLog')).toEqual(['1994-12-12', '2021-03-02', '2022-04-15']);
    const recs = historyRecords(parsed, 'coreutils');
    // tests/cp/a.sh and NEWS were first named less than 3 years before the last entry.
    expect(recs.map((r) => r.id).sort()).toEqual(['coreutils/ChangeLog', 'coreutils/Makefile.in', 'coreutils/src/', 'coreutils/src/copy.c']);
    const copy = recs.find((r) => r.id === 'coreutils/src/copy.c')!;
    expect(copy).toMatchObject({ created: '1994-12-12T00:00:00.000Z', end: '2022-04-16T00:00:00.000Z', changes: ['2021-03-02T12:00:00.000Z'] });
    // The records load as lab histories without repairs.
    expect(historiesFromRecords(recs).diagnostics).toEqual([]);
  });
});
