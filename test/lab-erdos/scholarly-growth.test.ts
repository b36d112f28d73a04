import { describe, expect, it } from 'vitest';
import { scholarlyWeb } from '../../src/testkit/scholarly-web.ts';

/** The scholarly Web's research fields and its growth between two crawls (src/testkit/scholarly-web.ts). */
describe('scholarly Web: fields and growth', () => {
  it('keeps co-authors within a paper\'s field and lets citations cross fields; only Erdős\'s field has numbers', () => {
    const web = scholarlyWeb({ papers: 300, hosts: 4, fields: 3, seed: 2 });
    const fieldOfPaper = (i: number) => (i < 3 ? 0 : i % 3);
    web.papers.forEach((p, i) => {
      for (const a of p.authors) expect(web.fieldOf(a), `paper ${i}`).toBe(fieldOfPaper(i));
    });
    expect(web.papers.some((p, i) => p.cites.some((c) => fieldOfPaper(c) !== fieldOfPaper(i)))).toBe(true);
    const numbers = web.erdosNumbers();
    for (const a of numbers.keys()) expect(web.fieldOf(a)).toBe(0);
    expect(new Set(Array.from({ length: web.researchers }, (_, a) => web.fieldOf(a)))).toEqual(new Set([0, 1, 2]));
  });

  it('grows by papers that shorten distances to Erdős and never lengthen one, the same for the same seed', () => {
    const web = scholarlyWeb({ papers: 400, hosts: 6, fields: 2, seed: 5 });
    const before = web.erdosNumbers();
    const researchers = web.researchers;
    // One paper at a time: each joins someone at 3 or more with someone at 1 or less (Erdős, for someone at 2), as it is then.
    const added: number[] = [];
    for (let k = 0; k < 8; k++) {
      const now = web.erdosNumbers();
      const known = web.researchers;
      const [i] = web.grow(1);
      added.push(i!);
      const ns = web.papers[i!]!.authors.filter((a) => a < known).map((a) => now.get(a)!);
      expect(ns).toHaveLength(2);
      expect(Math.max(...ns) - Math.min(...ns)).toBeGreaterThanOrEqual(2);
      expect(Math.min(...ns)).toBeLessThanOrEqual(1);
    }
    expect(added).toEqual(Array.from({ length: 8 }, (_, k) => 400 + k));
    const after = web.erdosNumbers();
    for (const [a, n] of before) expect(after.get(a)!).toBeLessThanOrEqual(n);
    expect([...before].filter(([a, n]) => after.get(a)! < n).length).toBeGreaterThanOrEqual(8);
    expect(web.researchers).toBe(researchers + new Set(added.flatMap((i) => web.papers[i]!.authors).filter((a) => a >= researchers)).size);
    // The authors' pages list the new papers: what a re-crawl sees change.
    for (const i of added) for (const a of web.papers[i]!.authors) expect(web.personTurtle(a)).toContain(`<${web.paperUrl(i)}>`);
    expect(web.paperHtml(added[0]!)).toContain(web.person(web.papers[added[0]!]!.authors[0]!));

    const again = scholarlyWeb({ papers: 400, hosts: 6, fields: 2, seed: 5 });
    expect(again.grow(8)).toEqual(added);
    expect(again.papers).toEqual(web.papers);
  });

  it('stops growing when there is nothing left to shorten', () => {
    const web = scholarlyWeb({ papers: 3, hosts: 1 }); // Erdős's own three papers: everyone is at 0 or 1
    const n = web.erdosNumbers();
    expect(Math.max(...n.values())).toBeLessThanOrEqual(1);
    expect(web.grow(5)).toEqual([]);
  });
});
