import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryCommand } from '../../src/cli/commands/query.ts';
import type { ErdosLabResult } from '../../src/lab/erdos/index.ts';
import { archiveSelect, erdosNumbersBySparql } from '../../src/lab/erdos/numbers.ts';
import { VersionIndex } from '../../src/versions/version-index.ts';
import { openStore } from '../../src/store/index.ts';
import { scholarlyWeb } from '../../src/testkit/scholarly-web.ts';
import { runMain, runMainOk, tempDir } from '../helpers.ts';

/**
 * `datamonitor lab erdos` on a small scholarly Web (60 papers in 2 fields on 5 hosts), run through the
 * command once: its JSON, its plot and the archives it keeps are checked against a ground truth this
 * test makes itself (the generator run again with the same seed, grown the same way).
 */
const WEB = { papers: 60, hosts: 5, seed: 1, fields: 2 };
const GROW = 3;
const cli = (args: string[]) => runMainOk(['lab', 'erdos', ...args]);

/** Researcher IRI → number, before and after the growth. */
function truths() {
  const web = scholarlyWeb(WEB);
  const byIri = () => new Map([...web.erdosNumbers()].map(([a, n]) => [web.person(a), n]));
  const before = byIri();
  const researchersBefore = web.researchers;
  const added = web.grow(GROW);
  return { web, before, researchersBefore, after: byIri(), added };
}

async function numbersIn(dataDir: string, erdos: string, at?: number): Promise<Map<string, number>> {
  const store = await openStore(dataDir);
  const index = VersionIndex.open(dataDir, store);
  try {
    return (await erdosNumbersBySparql(archiveSelect(await index.current(), at), erdos)).numbers;
  } finally {
    await index.close();
    await store.close();
  }
}

describe('datamonitor lab erdos', () => {
  let dir: string;
  let r: ErdosLabResult;
  const truth = truths();
  const erdos = truth.web.person(0);
  beforeAll(async () => {
    dir = tempDir('dm-erdos-');
    const out = await cli([
      '--papers', String(WEB.papers), '--hosts', String(WEB.hosts), '--seed', String(WEB.seed), '--fields', String(WEB.fields), '--grow', String(GROW),
      '--data', path.join(dir, 'archives'), '--plot', path.join(dir, 'erdos.svg'), '--json',
    ]);
    r = JSON.parse(out);
  }, 900_000);

  it('the Web it measures has a path of 3 or more to Erdős, researchers without one, and growth that shortens some', () => {
    expect(Math.max(...truth.before.values())).toBeGreaterThanOrEqual(3);
    expect(truth.before.size).toBeLessThan(truth.researchersBefore);
    expect([...truth.after].some(([who, n]) => n < (truth.before.get(who) ?? Infinity))).toBe(true);
    expect(r.web).toMatchObject({ ...WEB, withNumber: truth.before.size, maxNumber: Math.max(...truth.before.values()) });
  });

  it('the query-driven crawl gives every researcher the number of the ground truth, as the breadth-first crawl does', async () => {
    const [follow, bfs] = r.methods;
    expect(follow!.method).toBe('follow');
    expect(bfs!.method).toBe('bfs');
    for (const m of r.methods) expect(m.score, m.method).toEqual({ numbered: truth.before.size, correct: truth.before.size, wrong: 0, missing: 0 });
    // The archive itself, numbered again here as it was at the end of the first crawl: the very same map.
    expect(await numbersIn(path.join(dir, 'archives', 'bfs'), erdos)).toEqual(truth.before);
    expect(await numbersIn(path.join(dir, 'archives', 'follow'), erdos, Date.parse(r.growth!.firstCrawlAt))).toEqual(truth.before);
  }, 300_000);

  it('the query-driven crawl fetches fewer documents than the breadth-first one, which follows citations into the other field', () => {
    const [follow, bfs] = r.methods;
    expect(follow!.documents).toBeLessThan(bfs!.documents);
    expect(follow!.redirects).toBe(0); // citations (some by a 303 /id/ IRI) are never followed
    expect(bfs!.redirects).toBeGreaterThan(0);
    // Every paper of Erdős's field with a numbered author, and every numbered researcher's page.
    const numberedPapers = truth.web.papers.slice(0, WEB.papers).filter((p) => p.authors.some((a) => truth.before.has(truth.web.person(a)))).length;
    expect(follow!.papers).toBe(numberedPapers);
    expect(follow!.people).toBe(truth.before.size);
    // The curve ends where the crawl did, with everyone numbered.
    expect(follow!.curve.at(-1)).toEqual([follow!.documents, truth.before.size]);
    expect(bfs!.curve.at(-1)![1]).toBe(truth.before.size);
  });

  it('after the growth the re-crawl reports the numbers that changed, and the archive at the first crawl still gives the old ones', async () => {
    const g = r.growth!;
    expect(g.papersAdded).toBe(truth.added.length);
    const changedInTruth = [...new Set([...truth.before.keys(), ...truth.after.keys()])].filter((who) => truth.before.get(who) !== truth.after.get(who));
    expect(g.truthChanged).toBe(changedInTruth.length);
    expect(g.changed.map((c) => c.researcher).sort()).toEqual(changedInTruth.sort());
    for (const c of g.changed) {
      expect(c.before).toBe(truth.before.get(c.researcher) ?? null);
      expect(c.after).toBe(truth.after.get(c.researcher));
      expect(c.truth).toBe(c.after);
    }
    // The cycle saw the authors' pages change (each lists the new paper), and nothing else.
    const authorsBefore = new Set(truth.added.flatMap((i) => truth.web.papers[i]!.authors).filter((a) => truth.before.has(truth.web.person(a))));
    expect(g.cycle.changed).toBe(authorsBefore.size);
    expect(g.cycle.errors).toBe(0);
    // The query-driven crawl over the archive fetched the new papers and the newcomers' pages.
    expect(g.researchersAdded).toBe(truth.web.researchers - truth.researchersBefore);
    expect(g.followUp.documents).toBe(truth.added.length + g.researchersAdded);
    expect(g.after).toEqual({ numbered: truth.after.size, correct: truth.after.size, wrong: 0, missing: 0 });
    expect(g.atFirstCrawl).toEqual({ numbered: truth.before.size, correct: truth.before.size, wrong: 0, missing: 0 });
    expect(g.atFirstCrawlSameAsBefore).toBe(true);
    expect(await numbersIn(path.join(dir, 'archives', 'follow'), erdos)).toEqual(truth.after);

    // `datamonitor query --at <end of the first crawl>`: a changed researcher's papers as they were, then now.
    const who = g.changed.find((c) => c.before !== null)!.researcher;
    const q = `PREFIX schema: <http://schema.org/> SELECT ?paper WHERE { ?paper schema:author <${who}> }`;
    const papers = (out: string) => (JSON.parse(out).results.bindings as Array<{ paper: { value: string } }>).map((b) => b.paper.value).sort();
    const data = path.join(dir, 'archives', 'follow');
    const index = Number(/person\/(\d+)#me$/.exec(who)![1]);
    const own = (upTo: number) => truth.web.papers.slice(0, upTo).flatMap((p, i) => (p.authors.includes(index) ? [truth.web.paperUrl(i)] : [])).sort();
    expect(papers(await queryCommand(q, { data, at: g.firstCrawlAt, json: true }, () => {}))).toEqual(own(WEB.papers));
    expect(papers(await queryCommand(q, { data, json: true }, () => {}))).toEqual(own(truth.web.papers.length));
    expect(own(truth.web.papers.length).length).toBeGreaterThan(own(WEB.papers).length);
    expect(g.queryAt).toContain(`--at ${g.firstCrawlAt}`);
  }, 300_000);

  it('--plot writes both crawls\' curves and the scores as SVG', () => {
    const svg = fs.readFileSync(path.join(dir, 'erdos.svg'), 'utf8');
    expect(svg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect((svg.match(/<polyline/g) ?? []).length).toBe(3); // query-driven, breadth-first, the researchers with a number
    expect(svg).toContain('after re-crawl');
  });

  it('--json has the documented shape', () => {
    expect(Object.keys(r).sort()).toEqual(['dataDir', 'growth', 'methods', 'politeness', 'seconds', 'web']);
    for (const m of r.methods) {
      expect(Object.keys(m).sort()).toEqual(['bytes', 'crawlSeconds', 'curve', 'documents', 'indexSeconds', 'label', 'method', 'papers', 'people', 'queries', 'querySeconds', 'redirects', 'score', 'triples'].sort());
      expect(m.queries).toBeGreaterThanOrEqual(Math.max(...truth.before.values()));
    }
    expect(Object.keys(r.growth!).sort()).toEqual(['after', 'atFirstCrawl', 'atFirstCrawlSameAsBefore', 'changed', 'cycle', 'firstCrawlAt', 'followUp', 'papersAdded', 'queryAt', 'researchersAdded', 'truthChanged']);
    expect(r.politeness).toEqual({ perHost: 4, delayMs: 0 });
  });
});

describe('datamonitor lab erdos: bad input', () => {
  const cli = (args: string[]) => runMainOk(['lab', 'erdos', ...args]);
  it('says what is wrong before it starts anything', async () => {
    await expect(cli(['--papers', '2'])).rejects.toThrow(/--papers must be at least 3/);
    const many = await runMain(['lab', 'erdos', '--papers', 'many']);
    expect(many.code).toBe(64); // a usage error, said before anything starts
    expect(many.err).toMatch(/--papers/);
    await expect(cli(['--delay', 'soon'])).rejects.toThrow(/--delay 'soon' is not a duration/);
    const full = tempDir('dm-erdos-full-');
    fs.writeFileSync(path.join(full, 'keep.txt'), 'mine');
    await expect(cli(['--data', full])).rejects.toThrow(/not an empty directory/);
    expect(fs.readdirSync(full)).toEqual(['keep.txt']);
  });
});
