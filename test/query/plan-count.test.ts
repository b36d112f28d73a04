import { describe, it, expect } from 'vitest';
import N3 from 'n3';
import { DAY, T0 } from './helpers.ts';
import { builtBackend, VERSION_BACKENDS } from './version-backends.ts';
import { runQuery, type ResultFormat, type VersionBackend } from '../../src/query/index.ts';
import { linkedDataWeb, VOCAB_HOST } from '../../src/testkit/linked-data-web.ts';
import { SMALL_ARCHIVE_ROWS } from '../../src/query/plan/planner.ts';

/**
 * An aggregate over one triple pattern at T is counted in SQL over the rows valid at T (plan/count.ts), on
 * SQLite and on PostgreSQL, and must print the bytes the whole snapshot's engine prints: named graphs that
 * two documents share, the snapshot's dm:inDocument statements, literals the engine holds as one term
 * ("74.00" and "74" as xsd:decimal, "01" and "1" as xsd:integer in one document, language tags in two
 * cases), a history with revisions and deletions, four instants.
 */
const DOCS = 330; // ~35 rows each: over SMALL_ARCHIVE_ROWS, so the planner has a choice
const web = linkedDataWeb({ documents: DOCS, hosts: 5 });
const T1 = T0 + 10 * DAY;
const T2 = T0 + 20 * DAY;
const V = `http://${VOCAB_HOST}/ns#`;
const NG = 'http://shared.lod.test/graph#one';
const DEC = 'http://www.w3.org/2001/XMLSchema#decimal';
const INT = 'http://www.w3.org/2001/XMLSchema#integer';

const parse = (text: string, format = 'text/turtle') => new N3.Parser({ format }).parse(text);

async function build(archive: VersionBackend): Promise<void> {
  const put = (graph: string, time: number, text: string, format?: string) => archive.putVersion(graph, time, parse(text, format));
  for (let i = 0; i < DOCS; i++) await put(web.document(i), T0 + (i % 5) * 1000, web.turtle(i));
  // Literals the engine writes in its own form: one term to it, two in the archive.
  await put('http://odd.lod.test/a', T0, `<http://odd.lod.test/a#it> <${V}weight> "74.00"^^<${DEC}> ; <${V}size> "01"^^<${INT}>, "1"^^<${INT}> ; <${V}name> "Odd"@EN-GB .`);
  await put('http://odd.lod.test/b', T0, `<http://odd.lod.test/b#it> <${V}weight> "74"^^<${DEC}> ; <${V}name> "Odd"@en-gb .`);
  // Two documents naming one graph, with one triple in common: one quad in the snapshot.
  for (const d of ['http://trig.lod.test/1.trig', 'http://trig.lod.test/2.trig']) {
    await put(d, T0, `<${NG}> { <http://trig.lod.test/x> <${V}city> "Shared" . <${d}#me> <${V}city> "Own" . } <${d}#me> <${V}name> "Default" .`, 'application/trig');
  }
  for (let i = 0; i < DOCS; i += 3) await put(web.document(i), T1 + i, web.turtle(i).replace(`"Resource ${i}"@en`, `"Resource ${i}, revised"@en`));
  for (let i = 0; i < DOCS; i += 7) await archive.deleteGraph(web.document(i), T2 + i);
  await archive.deleteGraph('http://trig.lod.test/2.trig', T2);
  // From here no named graph is valid: the count takes its other form (every row its own quad but the merged ones).
  await archive.deleteGraph('http://trig.lod.test/1.trig', T2 + DAY / 2);
  archive.flush();
}

const COUNTS: Array<[string, string, ResultFormat?]> = [
  ['every triple', 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }'],
  ['every triple, counted by a variable', 'SELECT (COUNT(?o) AS ?count) WHERE { ?s ?p ?o }'],
  ['a bound predicate', 'SELECT (COUNT(*) AS ?n) WHERE { ?s rdfs:label ?o }'],
  ['distinct subjects of a predicate', 'SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s rdfs:label ?o }'],
  ['distinct objects the engine merges', `SELECT (COUNT(DISTINCT ?w) AS ?n) WHERE { ?s <${V}weight> ?w }`],
  ['two integers of one value in one document', `SELECT (COUNT(*) AS ?n) WHERE { ?s <${V}size> ?o }`],
  ['language tags in two cases', `SELECT (COUNT(DISTINCT ?o) AS ?n) WHERE { ?s <${V}name> ?o }`],
  ['distinct triples', 'SELECT (COUNT(DISTINCT *) AS ?n) WHERE { ?s ?p ?o }'],
  ['distinct predicates', 'SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE { ?s ?p ?o }'],
  ['one subject', `SELECT (COUNT(*) AS ?n) WHERE { <${web.resource(3)}> ?p ?o }`],
  ['an object constant (a plain string)', `SELECT (COUNT(*) AS ?n) WHERE { ?s ?p "Shared" }`],
  ['the documents of named graphs', 'PREFIX dm: <https://w3id.org/datamonitor/ns#> SELECT (COUNT(*) AS ?n) WHERE { ?g dm:inDocument ?d }'],
  ['a predicate the archive lacks', 'SELECT (COUNT(*) AS ?n) WHERE { ?s <http://nothing.test/p> ?o }'],
  ['CSV', 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', 'csv'],
  ['TSV', 'SELECT (COUNT(DISTINCT ?s) AS ?subjects) WHERE { ?s ?p ?o }', 'tsv'],
];

/** Aggregates the SQL does not answer: the engine counts them (from the snapshot or the pattern rows). */
const NOT_PUSHED: Array<[string, string]> = [
  ['a FILTER', 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o FILTER(isIRI(?o)) }'],
  ['GROUP BY', 'SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p'],
  ['two patterns', 'SELECT (COUNT(*) AS ?n) WHERE { ?s rdfs:label ?l ; ?p ?o }'],
  ['GRAPH ?g', 'SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }'],
  ['a repeated variable', 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?s }'],
  ['a typed literal constant', `SELECT (COUNT(*) AS ?n) WHERE { ?s <${V}weight> 74 }`],
  ['FROM', `SELECT (COUNT(*) AS ?n) FROM <${web.document(1)}> WHERE { ?s ?p ?o }`],
];

const INSTANTS: Array<[string, number]> = [
  ['during the first crawl', T0 + 2000],
  ['during the revisions', T1 + DOCS / 2],
  ['after the deletions', T2 + DAY],
  ['now', Number.MAX_SAFE_INTEGER - 1],
];

describe.each(VERSION_BACKENDS)('counts at T from the index on $name', (backend) => {
  const held = builtBackend(backend, build);

  it.skipIf(backend.skip)('the archive is big enough that the planner has a choice', () => {
    expect(held.archive.rowsEstimate()).toBeGreaterThan(SMALL_ARCHIVE_ROWS);
  });

  it.skipIf(backend.skip).each(INSTANTS)('every count equals the whole snapshot’s, byte for byte, at an instant %s', async (_name, at) => {
    const differences: string[] = [];
    const nonZero: string[] = [];
    for (const [name, sparql, format] of COUNTS) {
      const counted = await runQuery(held.archive, sparql, { at, format });
      const whole = await runQuery(held.archive, sparql, { at, format, plan: 'snapshot' });
      expect(counted.plan, name).toBe('count');
      expect(whole.plan).toBe('snapshot');
      if (counted.body !== whole.body) differences.push(`${name}:\n  snapshot ${whole.body.slice(0, 300)}\n  count    ${counted.body.slice(0, 300)}`);
      if (!/"value":"0"|^\?*\w+\r?\n0\r?\n?$/.test(whole.body)) nonZero.push(name);
    }
    expect(differences).toEqual([]);
    // Equal zeros would prove little: most counts find something.
    expect(nonZero.length).toBeGreaterThan(COUNTS.length * 0.6);
  }, 300_000);

  it.skipIf(backend.skip)('the engine-merged literals are really there and really merged (the cases above test something)', async () => {
    const at = T0 + DAY;
    const body = (await runQuery(held.archive, `SELECT (COUNT(*) AS ?n) WHERE { ?s <${V}size> ?o }`, { at, plan: 'snapshot' })).body;
    expect(body).toContain('"value":"1"'); // two archive rows, one quad to the engine
    const weights = (await runQuery(held.archive, `SELECT (COUNT(DISTINCT ?w) AS ?n) WHERE { ?s <${V}weight> ?w }`, { at, plan: 'snapshot' })).body;
    const rows = (await runQuery(held.archive, `SELECT ?w WHERE { ?s <${V}weight> ?w }`, { at, plan: 'snapshot' })).body;
    expect(Number(/"value":"(\d+)"/.exec(weights)![1])).toBeLessThan((JSON.parse(rows) as { results: { bindings: unknown[] } }).results.bindings.length);
  });

  it.skipIf(backend.skip)('a literal that arrives after its odd twin was counted is merged with it (terms read since the last count)', async () => {
    // "5.50" is counted first (the process remembers the engine's form it takes, "5.5"); "5.5" comes in a later version.
    const at = T2 + 2 * DAY;
    const q = `SELECT (COUNT(DISTINCT ?w) AS ?n) WHERE { ?s <${V}weight> ?w }`;
    await held.archive.putVersion('http://odd.lod.test/late-a', T2 + DAY, parse(`<http://odd.lod.test/late-a#it> <${V}weight> "5.50"^^<${DEC}> .`));
    held.archive.flush();
    expect((await runQuery(held.archive, q, { at })).body).toBe((await runQuery(held.archive, q, { at, plan: 'snapshot' })).body);
    await held.archive.putVersion('http://odd.lod.test/late-b', T2 + DAY + 1, parse(`<http://odd.lod.test/late-b#it> <${V}weight> "5.5"^^<${DEC}> .`));
    held.archive.flush();
    const counted = await runQuery(held.archive, q, { at });
    expect(counted.plan).toBe('count');
    expect(counted.body).toBe((await runQuery(held.archive, q, { at, plan: 'snapshot' })).body);
  });

  /** A second store on the same data, as another process opens it, that tells how many literal terms it read. */
  const anotherProcess = (opts?: { readonly?: boolean }) => {
    const archive = held.reopen(opts);
    const read = { terms: 0 };
    const counted = (own: (...args: number[]) => Array<{ id: number; nt: string }>) => (...args: number[]) => {
      const terms = own(...args);
      read.terms += terms.length;
      return terms;
    };
    archive.literalTerms = counted(archive.literalTerms.bind(archive) as never);
    if (archive.oddLiteralTerms) archive.oddLiteralTerms = counted(archive.oddLiteralTerms.bind(archive) as never);
    return { archive, read };
  };

  it.skipIf(backend.skip)('a new process goes on from the term check the last one saved: it reads no term again, and counts the same', async () => {
    const at = T2 + 2 * DAY;
    const q = `SELECT (COUNT(DISTINCT ?w) AS ?n) WHERE { ?s <${V}weight> ?w }`;
    const first = await runQuery(held.archive, q, { at });
    expect(first.plan).toBe('count');
    const next = anotherProcess();
    const counted = await runQuery(next.archive, q, { at });
    expect(counted.plan).toBe('count');
    expect(counted.body).toBe(first.body);
    expect(next.read.terms).toBe(0);
    // A process that checks on its own reads every odd term at least: what the saved check spares.
    const memoLess = anotherProcess();
    memoLess.archive.termCheckMemo = undefined;
    await runQuery(memoLess.archive, q, { at });
    expect(memoLess.read.terms).toBeGreaterThan(0);
  });

  it.skipIf(backend.skip)('a literal whose odd twin another process checked is merged with it (forms read back from the store)', async () => {
    const at = T2 + 3 * DAY;
    const q = `SELECT (COUNT(DISTINCT ?w) AS ?n) WHERE { ?s <${V}weight> ?w }`;
    await held.archive.putVersion('http://odd.lod.test/late-c', T2 + 2 * DAY, parse(`<http://odd.lod.test/late-c#it> <${V}weight> "6.250"^^<${DEC}> .`));
    held.archive.flush();
    const a = anotherProcess();
    expect((await runQuery(a.archive, q, { at })).body).toBe((await runQuery(a.archive, q, { at, plan: 'snapshot' })).body);
    await held.archive.putVersion('http://odd.lod.test/late-d', T2 + 2 * DAY + 1, parse(`<http://odd.lod.test/late-d#it> <${V}weight> "6.25"^^<${DEC}> .`));
    held.archive.flush();
    const b = anotherProcess();
    const counted = await runQuery(b.archive, q, { at });
    expect(counted.plan).toBe('count');
    expect(counted.body).toBe((await runQuery(b.archive, q, { at, plan: 'snapshot' })).body);
    // It read the new terms only, and the merge really happened (the two are one value to the engine).
    expect(b.read.terms).toBeGreaterThan(0);
    expect(b.read.terms).toBeLessThan(10);
    const both = (await runQuery(b.archive, `SELECT ?w WHERE { ?s <${V}weight> ?w }`, { at, plan: 'snapshot' })).body;
    expect(both).toContain('6.25');
  });

  it.skipIf(backend.skip)('two processes that checked from one saved check: the second to save writes nothing, and the saved check stays whole', async () => {
    const a = anotherProcess().archive.termCheckMemo!();
    const b = anotherProcess().archive.termCheckMemo!();
    const saved = a.load()!;
    expect(saved.exact).toBe(true);
    expect(saved.same.size).toBeGreaterThan(0);
    const later = { ...saved, after: saved.after + 1 };
    expect(a.save(saved.after, later, new Map())).toBe(true);
    expect(b.save(saved.after, { ...later, same: new Map([[1, 1], [2, 1]]) }, new Map([['"x"^^<y:z>', 1]]))).toBe(false);
    const now = anotherProcess().archive.termCheckMemo!().load()!;
    expect(now.after).toBe(saved.after + 1);
    expect([...now.same]).toEqual([...saved.same]);
    expect(b.firstOfForms(['"x"^^<y:z>'])).toEqual([undefined]);
  });

  it.skipIf(backend.skip)('a store opened read-only counts right and saves nothing', async () => {
    const at = T2 + 3 * DAY;
    const q = `SELECT (COUNT(DISTINCT ?w) AS ?n) WHERE { ?s <${V}weight> ?w }`;
    await held.archive.putVersion('http://odd.lod.test/late-e', T2 + 2 * DAY + 2, parse(`<http://odd.lod.test/late-e#it> <${V}weight> "7.10"^^<${DEC}>, "7.1"^^<${DEC}> .`));
    held.archive.flush();
    const before = anotherProcess().archive.termCheckMemo!().load()!.after;
    const reader = anotherProcess({ readonly: true });
    const counted = await runQuery(reader.archive, q, { at });
    expect(counted.plan).toBe('count');
    expect(counted.body).toBe((await runQuery(reader.archive, q, { at, plan: 'snapshot' })).body);
    expect(anotherProcess().archive.termCheckMemo!().load()!.after).toBe(before);
  });

  it.skipIf(backend.skip).each(NOT_PUSHED)('an aggregate with %s is the engine’s to count', async (_name, sparql) => {
    const r = await runQuery(held.archive, sparql, { at: T0 + DAY });
    expect(r.plan).not.toBe('count');
  });
});
