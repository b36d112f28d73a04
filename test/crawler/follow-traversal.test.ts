import { describe, expect, it } from 'vitest';
import { Parser } from 'n3';
import { createSchedule, queryIris, Traversal, triplePatterns } from '../../src/crawler/follow/index.ts';
import { Knowledge } from '../../src/crawler/follow/knowledge.ts';
import { analyseQuery } from '../../src/query/sparql-text.ts';

/** The parts of query-driven crawling that decide, without a crawl: what a query starts from, how links rank, when queries run. */

const EX = 'http://ex.test/';
const parse = (ttl: string) => new Parser({ baseIRI: EX }).parse(`@prefix : <${EX}> . @prefix foaf: <http://xmlns.com/foaf/0.1/> .\n${ttl}`);
const Q = analyseQuery(`PREFIX : <${EX}> SELECT ?name WHERE { :alice foaf:knows ?f . ?f foaf:knows ?g . ?g foaf:name ?name }`);

describe('link-traversal ranking', () => {
  it("starts from the query's subjects and objects, not its predicates or classes", async () => {
    const patterns = await triplePatterns(analyseQuery(`PREFIX : <${EX}> SELECT * WHERE { :alice foaf:knows ?f . ?f a foaf:Person ; foaf:based_near :paris }`).text);
    expect(queryIris(patterns).sort()).toEqual([`${EX}alice`, `${EX}paris`]);
  });

  it("ranks links of matches joined to the query's resources first, and raises a waiting link once a later match joins it", async () => {
    const scores = new Map<string, number>();
    const t = new Traversal(await triplePatterns(Q.text), (iri, s) => scores.set(iri, (scores.get(iri) ?? 0) + s));
    // Carol's document first: her foaf:knows matches the second pattern, but nothing joins her to Alice yet.
    t.learn(parse(':carol foaf:knows :dave ; foaf:name "Carol" .'));
    const before = scores.get(`${EX}dave`)!;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(1);
    // Bob's (an unrelated person) links stay at the back too.
    t.learn(parse(':bob foaf:knows :erin .'));
    expect(scores.get(`${EX}erin`)!).toBeLessThan(1);
    // Alice's document joins Carol: Dave's link is raised to a full score; Erin's stays behind.
    t.learn(parse(':alice foaf:knows :carol .'));
    expect(scores.get(`${EX}carol`)!).toBeGreaterThanOrEqual(1);
    expect(scores.get(`${EX}dave`)!).toBeGreaterThan(before + 1);
    expect(scores.get(`${EX}erin`)!).toBeLessThan(1);
  });
});

describe('the crawl\'s store of what it learnt', () => {
  it('keeps each document in its own graph, blank nodes apart, and replaces a document learnt again', () => {
    const k = new Knowledge();
    k.add(`${EX}a`, parse(':x foaf:knows [ foaf:name "A" ] .'));
    k.add(`${EX}b`, parse(':y foaf:knows [ foaf:name "B" ] .'));
    const names = analyseQuery('SELECT ?who ?name WHERE { ?who foaf:knows ?b . ?b foaf:name ?name }');
    expect(k.select(names).map((s) => `${s.get('who')!.value} ${s.get('name')!.value}`).sort()).toEqual([`${EX}x A`, `${EX}y B`]);
    k.add(`${EX}a`, parse(':x foaf:knows :z .'));
    expect(k.documents).toBe(2);
    expect(k.boundIris(analyseQuery('SELECT ?o WHERE { ?s foaf:knows ?o }'))).toEqual(new Set([`${EX}z`]));
    k.close();
  });
});

describe('when the driving queries run', () => {
  it('growth: when a tenth more was learnt, or when nothing is queued; every: after each document; N: every N', () => {
    const growth = createSchedule('auto')!;
    expect(growth.due(0, 100, true)).toBe(false); // nothing new: nothing to ask
    expect(growth.due(1, 100, true)).toBe(true); // starving: ask now
    expect(growth.due(9, 100, false)).toBe(false);
    expect(growth.due(10, 100, false)).toBe(true);
    expect(createSchedule('every')!.due(1, 5000, false)).toBe(true);
    const batch = createSchedule('50')!;
    expect([batch.due(49, 1000, false), batch.due(50, 1000, false), batch.due(3, 1000, true)]).toEqual([false, true, true]);
    expect(createSchedule('0')).toBeUndefined();
    expect(createSchedule('soon')).toBeUndefined();
  });

  it('the growth schedule runs O(log N) times over N documents', () => {
    const growth = createSchedule('auto')!;
    let pending = 0;
    let runs = 0;
    for (let n = 1; n <= 10_000; n++) {
      pending++;
      if (growth.due(pending, n, false)) (runs++, (pending = 0));
    }
    expect(runs).toBeLessThan(120);
    expect(runs).toBeGreaterThan(20);
  });
});
