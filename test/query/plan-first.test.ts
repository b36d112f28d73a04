import { describe, it, expect } from 'vitest';
import N3 from 'n3';
import { DAY, T0 } from './helpers.ts';
import { builtBackend, VERSION_BACKENDS } from './version-backends.ts';
import { runQuery, type QueryResult, type VersionBackend } from '../../src/query/index.ts';
import { linkedDataWeb, VOCAB_HOST } from '../../src/testkit/linked-data-web.ts';
import { FIRST_ROWS, GROWTH } from '../../src/query/plan/first.ts';
import { UNSELECTIVE_SHARE } from '../../src/query/plan/planner.ts';

/**
 * A query that asks for its first solutions (SELECT … LIMIT without ORDER BY, ASK) is answered from the
 * first rows valid at T, read in growing rounds (plan/first.ts), instead of loading the whole snapshot:
 * `SELECT * WHERE { ?s ?p ?o } LIMIT 10` took 24 s and 1.2 GB at 100,000 documents. Its solutions must
 * be solutions of the whole snapshot (SPARQL leaves the order of unordered solutions open, so they are
 * checked as members of the whole answer, blank nodes by what they hold), as many as asked for, on
 * both stores, at an instant in the past and now; a query whose answer is not among the first rows
 * gets the whole snapshot's answer.
 */
const DOCS = 1_400; // ~35 rows each: a quarter of them (the planner's bound on the rounds) holds two rounds
const web = linkedDataWeb({ documents: DOCS, hosts: 7 });
const T1 = T0 + 10 * DAY;
const V = `http://${VOCAB_HOST}/ns#`;
const P = `PREFIX v: <${V}> `;

const parse = (text: string) => new N3.Parser({ format: 'text/turtle' }).parse(text);

async function build(archive: VersionBackend): Promise<void> {
  for (let i = 0; i < DOCS; i++) await archive.putVersion(web.document(i), T0 + i, parse(web.turtle(i)));
  for (let i = 0; i < DOCS; i += 4) await archive.putVersion(web.document(i), T1 + i, parse(web.turtle(i).replace(`"Resource ${i}"@en`, `"Resource ${i}, revised"@en`)));
  archive.flush();
}

type Binding = Record<string, { type: string; value: unknown }>;
const bindings = (r: QueryResult): Binding[] => (JSON.parse(r.body) as { results: { bindings: Binding[] } }).results.bindings;
const key = (b: Binding): string => JSON.stringify(Object.keys(b).sort().map((k) => [k, b[k]]));

/** Whether every solution of `part` is one of `whole` (each at most as often). */
function within(part: Binding[], whole: Binding[]): string[] {
  const left = new Map<string, number>();
  for (const b of whole) left.set(key(b), (left.get(key(b)) ?? 0) + 1);
  const missing: string[] = [];
  for (const b of part) {
    const n = left.get(key(b)) ?? 0;
    if (n === 0) missing.push(key(b));
    else left.set(key(b), n - 1);
  }
  return missing;
}

const INSTANTS: Array<[string, number]> = [
  ['during the first crawl', T0 + DOCS / 2],
  ['now', Number.MAX_SAFE_INTEGER - 1],
];

describe.each(VERSION_BACKENDS)('first solutions of an unordered query ($name)', (backend) => {
  const held = builtBackend(backend, build);

  it.skipIf(backend.skip)('the archive is big enough for two rounds under the planner’s bound', () => {
    expect(held.archive.rowsEstimate() * UNSELECTIVE_SHARE).toBeGreaterThan(FIRST_ROWS * GROWTH);
  });

  it.skipIf(backend.skip).each(INSTANTS)('every triple, LIMIT 10 (and with OFFSET): solutions of the snapshot, from its first rows (%s)', async (_name, at) => {
    const where = 'WHERE { ?s ?p ?o FILTER(!isBlank(?s) && !isBlank(?o)) }';
    // Before the whole snapshot is loaded: once it is, it answers every query about its instant at no cost.
    const firsts = [];
    for (const modifiers of ['LIMIT 10', 'LIMIT 7 OFFSET 300']) firsts.push(await runQuery(held.archive, `SELECT * ${where} ${modifiers}`, { at }));
    const whole = await runQuery(held.archive, `SELECT * ${where}`, { at, plan: 'snapshot' });
    expect(whole.quads).toBeGreaterThan(FIRST_ROWS * 10);
    for (const [i, first] of firsts.entries()) {
      expect(first.plan).toBe('first');
      expect(first.quads).toBeLessThanOrEqual(FIRST_ROWS);
      expect(bindings(first)).toHaveLength(i === 0 ? 10 : 7);
      expect(within(bindings(first), bindings(whole))).toEqual([]);
    }
  });

  it.skipIf(backend.skip)('a join through blank nodes, and a DISTINCT: solutions of the snapshot', async () => {
    const firsts: Array<[string, QueryResult]> = [];
    for (const sparql of [
      `${P} SELECT ?r ?street ?city WHERE { ?r v:address ?a . ?a v:street ?street ; v:city ?city } LIMIT 25`,
      'SELECT DISTINCT ?p WHERE { ?s ?p ?o } LIMIT 12',
      `${P} SELECT ?r ?l WHERE { { ?r v:postcode ?l } UNION { ?r rdfs:label ?l FILTER(langMatches(lang(?l), "fr")) } } LIMIT 30`,
    ]) firsts.push([sparql, await runQuery(held.archive, sparql, { at: T1 })]);
    for (const [sparql, first] of firsts) {
      const whole = await runQuery(held.archive, sparql.replace(/LIMIT \d+$/, ''), { at: T1, plan: 'snapshot' });
      expect(first.plan, sparql).toBe('first');
      const asked = Number(/LIMIT (\d+)$/.exec(sparql)![1]);
      expect(bindings(first), sparql).toHaveLength(asked);
      expect(within(bindings(first), bindings(whole)), sparql).toEqual([]);
    }
  });

  it.skipIf(backend.skip)('solutions past the first round are found in the next one', async () => {
    // The identifiers of documents past the first round's rows: the first round finds none of them.
    const sparql = `${P} SELECT ?r ?n WHERE { ?r ?p ?n FILTER(isLiteral(?n) && datatype(?n) = xsd:integer && ?n >= ${Math.ceil((FIRST_ROWS / 30) * 2)}) } LIMIT 5`;
    const first = await runQuery(held.archive, sparql, { at: T0 + DOCS });
    expect(first.plan).toBe('first');
    expect(first.quads).toBeGreaterThan(FIRST_ROWS);
    expect(first.quads).toBeLessThanOrEqual(FIRST_ROWS * GROWTH);
    const whole = await runQuery(held.archive, sparql.replace(/LIMIT 5$/, ''), { at: T0 + DOCS, plan: 'snapshot' });
    expect(bindings(first)).toHaveLength(5);
    expect(within(bindings(first), bindings(whole))).toEqual([]);
  });

  it.skipIf(backend.skip)('ASK: true from the first rows; false, and a LIMIT the archive cannot fill, from the whole snapshot', async () => {
    const yes = await runQuery(held.archive, `${P} ASK { ?s rdfs:label ?l FILTER(STRSTARTS(?l, "Ressource")) }`);
    expect(yes.plan).toBe('first');
    expect(JSON.parse(yes.body)).toEqual({ head: {}, boolean: true });
    const no = await runQuery(held.archive, `ASK { ?s ?p ?o FILTER(?o = "nowhere in the archive") }`);
    expect(no.plan).toBe('snapshot');
    expect(JSON.parse(no.body)).toEqual({ head: {}, boolean: false });
    const few = await runQuery(held.archive, `${P} SELECT ?s WHERE { ?s ?p ?o FILTER(?o = "Resource 8, revised"@en) } LIMIT 10`);
    expect(few.plan).toBe('snapshot');
    expect(bindings(few)).toEqual([{ s: { type: 'uri', value: web.resource(8) } }]);
  });

  it.skipIf(backend.skip)('queries that can lose a solution when rows are added are planned as before', async () => {
    for (const sparql of [
      `${P} SELECT ?s ?l WHERE { ?s a v:Agent OPTIONAL { ?s v:nothing ?l } } LIMIT 3`,
      `${P} SELECT ?s WHERE { ?s a v:Agent FILTER NOT EXISTS { ?s v:active true } } LIMIT 3`,
      `${P} SELECT ?s WHERE { ?s a v:Agent MINUS { ?s v:active true } } LIMIT 3`,
      `SELECT ?s WHERE { ?s ?p ?o } ORDER BY ?s LIMIT 3`,
      `SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p LIMIT 3`,
      `SELECT ?s WHERE { { SELECT ?s WHERE { ?s ?p ?o } ORDER BY DESC(?s) LIMIT 2 } } LIMIT 1`,
    ]) {
      expect((await runQuery(held.archive, sparql)).plan, sparql).not.toBe('first');
    }
  });
});
