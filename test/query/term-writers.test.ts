import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, it, expect, afterEach } from 'vitest';
import { turtle, DAY, T0 } from './helpers.ts';
import { VersionArchive, ntripleLine } from '../../src/query/index.ts';
import { TermIds } from '../../src/versions/term-ids.ts';

const DOC = 'http://example.org/doc.ttl';
const OTHER = 'http://example.org/other.ttl';

/** Terms stored twice (under two ids): each would split its rows between the two. */
function duplicateTerms(file: string): Array<{ nt: string; n: number }> {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT nt, count(*) AS n FROM terms GROUP BY nt HAVING count(*) > 1').all() as Array<{ nt: string; n: number }>;
  } finally {
    db.close();
  }
}

const lines = (rows: Iterable<{ s: string; p: string; o: string }>): string[] => [...rows].map((r) => ntripleLine({ graph: '', ...r })).sort();

describe('two writers of one dictionary', () => {
  let dir = '';
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const put = (a: VersionArchive, graph: string, time: number, text: string) => a.writeTransaction(() => a.putVersionNow(graph, time, turtle(text)));

  it('a writer that made the dictionary from empty takes the terms another connection added meanwhile by their ids', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-term-writers-'));
    const file = path.join(dir, 'versions.sqlite');
    const first = new VersionArchive(file);
    const second = new VersionArchive(file);
    // The first writer starts on an empty dictionary, and its cache holds every term until the second writes.
    put(first, DOC, T0, 'ex:a ex:p ex:b .');
    put(second, OTHER, T0 + DAY, 'ex:c ex:q "shared" . ex:d ex:q ex:e .');
    put(first, DOC, T0 + 2 * DAY, 'ex:a ex:p ex:b . ex:c ex:q "shared" . ex:d ex:q ex:e . ex:f ex:p <other.ttl> .');
    put(second, OTHER, T0 + 3 * DAY, 'ex:f ex:q ex:g .');
    put(first, DOC, T0 + 4 * DAY, 'ex:f ex:q ex:g . ex:a ex:p ex:b .');
    expect(duplicateTerms(file)).toEqual([]);
    // A pattern on a term that both wrote finds both documents' rows under its one id.
    expect(lines(first.snapshot(T0 + 2 * DAY)).filter((l) => l.includes('"shared"'))).toHaveLength(2);
    await first.close();
    await second.close();
  });

  it('a writer that opens a dictionary holding terms probes it for each one', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-term-writers-'));
    const file = path.join(dir, 'versions.sqlite');
    const before = new VersionArchive(file);
    put(before, OTHER, T0, 'ex:c ex:q "shared" .');
    await before.close();
    const after = new VersionArchive(file);
    put(after, DOC, T0 + DAY, 'ex:c ex:q "shared" . ex:a ex:p ex:b .');
    expect(duplicateTerms(file)).toEqual([]);
    await after.close();
  });

  it('a rolled-back transaction leaves no term id behind in the cache', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-term-writers-'));
    const file = path.join(dir, 'versions.sqlite');
    const a = new VersionArchive(file);
    put(a, DOC, T0, 'ex:a ex:p ex:b .');
    expect(() => a.writeTransaction(() => {
      a.putVersionNow(OTHER, T0, turtle('ex:x ex:p ex:y .'));
      throw new Error('abandoned');
    })).toThrow('abandoned');
    const b = new VersionArchive(file);
    put(b, OTHER, T0 + DAY, 'ex:x ex:p ex:y .');
    put(a, DOC, T0 + 2 * DAY, 'ex:x ex:p ex:y . ex:a ex:p ex:b .');
    expect(duplicateTerms(file)).toEqual([]);
    await a.close();
    await b.close();
  });
});

describe('TermIds', () => {
  it('keeps the terms used in the last generation when it starts a new one', () => {
    const ids = new TermIds(4);
    ids.set('<a>', 1);
    ids.set('<b>', 2);
    ids.trim();
    expect(ids.get('<a>')).toBe(1); // read from the old generation, copied to the young one
    ids.set('<c>', 3);
    ids.trim();
    expect(ids.get('<a>')).toBe(1);
    expect(ids.get('<c>')).toBe(3);
    expect(ids.has('<b>')).toBe(false);
    ids.clear();
    expect(ids.get('<a>')).toBeUndefined();
  });
});
