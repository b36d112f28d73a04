import { describe, it, expect } from 'vitest';
import { assignAll, assignArchive, rankArchives, unitHash, type ArchiveCapacity } from '../../src/federation/rendezvous.ts';

const URLS = Array.from({ length: 40_000 }, (_, i) => `http://host${i % 211}.example.org/data/${i}.ttl`);

function shares(archives: ArchiveCapacity[]): Map<string, number> {
  const groups = assignAll(URLS, archives);
  return new Map([...groups].map(([id, urls]) => [id, urls.length / URLS.length]));
}

describe('capacity-weighted rendezvous hashing', () => {
  it('hashes into the open interval (0, 1), evenly', () => {
    let sum = 0;
    let min = 1;
    let max = 0;
    for (const u of URLS.slice(0, 10_000)) {
      const h = unitHash(u, 'a');
      sum += h;
      min = Math.min(min, h);
      max = Math.max(max, h);
    }
    expect(min).toBeGreaterThan(0);
    expect(max).toBeLessThan(1);
    expect(sum / 10_000).toBeCloseTo(0.5, 1);
  });

  it('gives each archive a share of new URLs that follows its capacity', () => {
    const archives = [{ id: 'https://a.example/', capacity: 1 }, { id: 'https://b.example/', capacity: 2 }, { id: 'https://c.example/', capacity: 5 }];
    const got = shares(archives);
    expect(got.get('https://a.example/')).toBeCloseTo(1 / 8, 1.8); // within 0.008
    expect(got.get('https://b.example/')).toBeCloseTo(2 / 8, 1.8);
    expect(got.get('https://c.example/')).toBeCloseTo(5 / 8, 1.8);
  });

  it('an archive that joins takes its share from all, and no URL moves between the others', () => {
    const before = [{ id: 'a', capacity: 3 }, { id: 'b', capacity: 3 }, { id: 'c', capacity: 2 }];
    const after = [...before, { id: 'd', capacity: 2 }];
    let moved = 0;
    let movedElsewhere = 0;
    for (const url of URLS) {
      const x = assignArchive(url, before);
      const y = assignArchive(url, after);
      if (x !== y) {
        if (y === 'd') moved++;
        else movedElsewhere++;
      }
    }
    expect(movedElsewhere).toBe(0);
    expect(moved / URLS.length).toBeCloseTo(2 / 10, 1.8);
  });

  it('an archive that leaves hands over only its own URLs, spread by capacity', () => {
    const all = [{ id: 'a', capacity: 1 }, { id: 'b', capacity: 3 }, { id: 'gone', capacity: 2 }];
    const rest = all.filter((a) => a.id !== 'gone');
    const inherited = { a: 0, b: 0 };
    let changed = 0;
    for (const url of URLS) {
      const x = assignArchive(url, all);
      const y = assignArchive(url, rest) as 'a' | 'b';
      if (x === 'gone') inherited[y]++;
      else if (y !== x) changed++;
    }
    expect(changed).toBe(0);
    expect(inherited.a + inherited.b).toBeGreaterThan(0.3 * URLS.length);
    expect(inherited.b / (inherited.a + inherited.b)).toBeCloseTo(3 / 4, 1.5);
  });

  it('rankArchives starts with the assigned archive; capacity 0 takes nothing; bad input is refused', () => {
    const archives = [{ id: 'a', capacity: 1 }, { id: 'b', capacity: 1 }, { id: 'full', capacity: 0 }];
    for (const url of URLS.slice(0, 200)) {
      const ranked = rankArchives(url, archives).map((a) => a.id);
      expect(ranked[0]).toBe(assignArchive(url, archives));
      expect(ranked).not.toContain('full');
    }
    expect(assignAll(URLS.slice(0, 1000), archives).get('full')).toEqual([]);
    expect(() => assignArchive('http://x/', [])).toThrow(/no archive/);
    expect(() => assignArchive('http://x/', [{ id: 'a', capacity: 0 }])).toThrow(/no archive/);
    expect(() => assignArchive('http://x/', [{ id: 'a', capacity: -1 }])).toThrow(/capacity -1/);
    expect(() => assignArchive('http://x/', [{ id: 'a', capacity: 1 }, { id: 'a', capacity: 2 }])).toThrow(/twice/);
  });
});
