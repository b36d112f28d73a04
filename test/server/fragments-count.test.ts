import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { CountCache, readFragment, ESTIMATE_ROWS, EXACT_COUNT_ROWS } from '../../src/server/fragments.ts';
import { NOW } from '../../src/query/sparql.ts';
import { tempArchive, T0, DAY } from '../query/helpers.ts';

/**
 * A fragment's count (readFragment): exact at T for a fragment of fewer than EXACT_COUNT_ROWS rows of any
 * time; for a larger one its rows of any time (the index alone), at most ESTIMATE_ROWS; never below the pages.
 */
const EX = 'http://example.org/';
const quads = (n: number, p: string, from = 0): Quad[] => Array.from({ length: n }, (_v, i) =>
  N3.DataFactory.quad(N3.DataFactory.namedNode(`${EX}s${from + i}`), N3.DataFactory.namedNode(`${EX}${p}`), N3.DataFactory.literal(String(i))));

describe('the count of a fragment', () => {
  const made = tempArchive();
  const pattern = (p: string) => ({ given: {}, pattern: { p: `<${EX}${p}>` }, page: 1 });
  beforeAll(async () => {
    // 12,000 large rows, of which 2,000 close at T0 + 1 day; 50 small rows, of which 20 close then.
    await made.archive.putVersion('http://a.test/1', T0, [...quads(12_000, 'large'), ...quads(50, 'small')]);
    await made.archive.putVersion('http://a.test/1', T0 + DAY, [...quads(10_000, 'large'), ...quads(30, 'small')]);
  }, 120_000);
  afterAll(() => made.cleanup());

  it('is exact at T for a small fragment', () => {
    expect(EXACT_COUNT_ROWS).toBeGreaterThan(50);
    expect(readFragment(made.archive, T0, pattern('small'), []).estimate).toBe(50);
    expect(readFragment(made.archive, T0 + DAY, pattern('small'), []).estimate).toBe(30);
  });

  it('counts a large fragment\'s rows of any time, the index alone', () => {
    expect(ESTIMATE_ROWS).toBeGreaterThan(12_000);
    expect(readFragment(made.archive, T0 + DAY, pattern('large'), []).estimate).toBe(12_000);
    expect(readFragment(made.archive, T0 + DAY, { given: {}, pattern: {}, page: 1 }, []).estimate).toBe(10_030);
  });

  it('is kept for the next pages, and not past a write', async () => {
    const counts = new CountCache();
    const read = () => {
      counts.generation = made.archive.generation;
      return readFragment(made.archive, NOW, pattern('small'), [], counts).estimate;
    };
    expect(read()).toBe(30);
    expect(counts.map.size).toBe(1);
    await made.archive.putVersion('http://a.test/2', T0 + 2 * DAY, quads(5, 'small', 100));
    made.archive.flush();
    expect(read()).toBe(35);
    expect(counts.map.size).toBe(2);
  });
});
