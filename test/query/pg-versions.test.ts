import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { DataFactory } from 'n3';
import {
  catchUpVersions, openVersionStore, PgVersionArchive, runQuery, type CatchUpProgress, type VersionBackend,
} from '../../src/query/index.ts';
import { openStore } from '../../src/store/index.ts';
import { buildScaleArchive } from '../../src/testkit/scale-archive.ts';
import { linkedDataWeb, SCHEMA_HOST, VOCAB_HOST } from '../../src/testkit/linked-data-web.ts';
import { pgBaseUrl, isolatedSchemaUrl, dropSchema } from '../store/pg.ts';
import { AsyncPg } from '../../src/util/async-pg.ts';

/**
 * The versioned store in PostgreSQL against the SQLite one on the same archive: a crawl's WARC and log
 * (src/testkit/scale-archive.ts: first captures, a changed second version of every tenth document, a
 * 404 of every hundredth) indexed by the catch-up into both must answer every query with the same bytes
 * at every instant, through either of the planner's paths; and a PostgreSQL catch-up killed half-way
 * resumes without storing anything twice.
 */
const pgBase = await pgBaseUrl();
const { namedNode, literal, quad } = DataFactory;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = 1000;
const web = linkedDataWeb({ documents: DOCS, hosts: 10 });
const T0 = Date.UTC(2026, 0, 1);
const P = `PREFIX v: <http://${VOCAB_HOST}/ns#> PREFIX s: <http://${SCHEMA_HOST}/term/> `;
const id = (i: number) => `<${web.resource(i)}>`;
const doc = (i: number) => `<${web.document(i)}>`;

const QUERIES: Array<[string, string]> = [
  ['one subject, one predicate', `${P} SELECT ?l WHERE { ${id(3)} rdfs:label ?l }`],
  ['a changed document', `${P} SELECT ?c WHERE { ${id(20)} rdfs:comment ?c }`],
  ['a deleted document', `${P} SELECT ?p ?o WHERE { ${id(100)} ?p ?o }`],
  ['unordered join', `${P} SELECT ?r ?l WHERE { ?r rdfs:label ?l . ?r v:identifier ?n } LIMIT 40`],
  ['blank nodes keep their labels', `${P} SELECT ?a ?street WHERE { ${id(5)} v:address ?a . ?a v:street ?street }`],
  ['GRAPH ?g', `${P} SELECT ?g ?r WHERE { GRAPH ?g { ?r v:city "City 3" } } LIMIT 30`],
  ['GRAPH <document>', `${P} SELECT ?p ?o WHERE { GRAPH ${doc(12)} { ${id(12)} ?p ?o } }`],
  ['OPTIONAL and FILTER', `${P} SELECT ?r ?l WHERE { ?r v:city "City 4" OPTIONAL { ?r rdfs:label ?l FILTER(lang(?l) = "fr") } }`],
  ['aggregate', `${P} SELECT ?c (COUNT(?r) AS ?n) WHERE { ?r a ?c } GROUP BY ?c ORDER BY DESC(?n) ?c`],
  ['path', `${P} SELECT ?x WHERE { ${id(1)} v:related/v:related ?x }`],
  ['CONSTRUCT', `${P} CONSTRUCT WHERE { ${id(9)} ?p ?o }`],
  ['ASK', `${P} ASK { ${id(21)} v:address ?x }`],
  ['every row', 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }'],
  ['DESCRIBE (the whole snapshot)', `DESCRIBE ${id(30)}`],
];

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dm-pgv-'));
}

async function indexInto(archive: VersionBackend, dataDir: string, opts: Parameters<typeof catchUpVersions>[3] = {}) {
  const store = await openStore(dataDir);
  await store.init();
  try {
    return await catchUpVersions(archive, store, dataDir, opts);
  } finally {
    await store.close();
  }
}

/** Rows stored more than once (the same quad with the same interval start): a catch-up applied a log row twice. */
async function doubledRows(url: string): Promise<number> {
  const u = new URL(url);
  const schema = u.searchParams.get('schema')!;
  u.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  try {
    const r = await client.query(`SELECT count(*) - (SELECT count(*) FROM (SELECT DISTINCT g, s, p, o, ng, from_t FROM "${schema}".vs_quads) d) AS n FROM "${schema}".vs_quads`);
    return Number(r.rows[0].n);
  } finally {
    await client.end();
  }
}

describe.skipIf(!pgBase)('versioned store in PostgreSQL: the same archive answers as in SQLite', () => {
  const dataDir = tempDir();
  let instants: Array<[string, number]>;
  let sqlite: VersionBackend;
  let postgres: PgVersionArchive;
  const url = pgBase ? isolatedSchemaUrl(pgBase, 'dm_pgv') : '';

  beforeAll(async () => {
    const built = await buildScaleArchive({ dataDir, documents: DOCS, hosts: 10 });
    // Captures are 7 ms apart: two per document in the first crawl, then the changes, then the 404s.
    const firstCrawlEnd = T0 + 14 * DOCS;
    instants = [
      ['during the first crawl', T0 + 7 * DOCS],
      ['after the first crawl', firstCrawlEnd + 3],
      ['during the changes', firstCrawlEnd + 7 * (DOCS / 20)],
      ['now', Number.MAX_SAFE_INTEGER - 1],
    ];
    expect(built.entries).toBeGreaterThan(2 * DOCS);
    sqlite = openVersionStore(tempDir());
    postgres = new PgVersionArchive(url);
    const [a, b] = [await indexInto(sqlite, dataDir), await indexInto(postgres, dataDir)];
    expect(b).toMatchObject({ rows: a.rows, versions: a.versions, deletions: a.deletions, failed: 0, bulk: true });
  }, 600_000);

  afterAll(async () => {
    await sqlite?.close();
    await postgres?.close();
    if (pgBase) await dropSchema(url);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('holds the same versions, rows and documents', () => {
    const [a, b] = [sqlite.stats(), postgres.stats()];
    expect({ ...b, file: '', bytes: 0 }).toEqual({ ...a, file: '', bytes: 0 });
    expect(postgres.graphs()).toEqual(sqlite.graphs());
    expect(postgres.rowsEstimate()).toBe(sqlite.rowsEstimate());
    expect(postgres.missingIndexes()).toEqual([]);
    expect(postgres.versions(web.document(10))).toEqual(sqlite.versions(web.document(10)));
    expect(postgres.patternVersions({ s: { term: id(20) }, p: { variable: 'p' }, o: { variable: 'o' } }))
      .toEqual(sqlite.patternVersions({ s: { term: id(20) }, p: { variable: 'p' }, o: { variable: 'o' } }));
    expect(postgres.changePoints()).toEqual(sqlite.changePoints());
    // One implementation over both databases: the same rows with the same ids, read in the same order.
    const [during, after] = [instants[0]![1], instants[2]![1]];
    expect([...postgres.snapshotRows(during)]).toEqual([...sqlite.snapshotRows(during)]);
    expect([...postgres.snapshot(after, { graphs: [web.document(20)] })]).toEqual([...sqlite.snapshot(after, { graphs: [web.document(20)] })]);
    expect(postgres.delta(during, after)).toEqual(sqlite.delta(during, after));
    expect(postgres.namedGraphsAt(after)).toEqual(sqlite.namedGraphsAt(after));
    // The first instants only, as `query --at` asks for the first one.
    const all = sqlite.changePoints();
    expect(all.length).toBeGreaterThan(3);
    for (const store of [sqlite, postgres]) {
      expect(store.changePoints({ limit: 1 })).toEqual(all.slice(0, 1));
      expect(store.changePoints({ from: all[1], limit: 2 })).toEqual(all.slice(1, 3));
    }
  });

  it('a selective query at T costs one round trip: generation, counts, rows and their terms in one statement', async () => {
    const at = instants[1]![1];
    const cases = [
      // Resources no earlier query named: none of their terms can come from a cache.
      ...[401, 402, 777].map((i) => `${P} SELECT ?l WHERE { ${id(i)} rdfs:label ?l } ORDER BY ?l`),
      `${P} SELECT ?a ?street WHERE { ${id(505)} v:address ?a . ?a v:street ?street }`,
      `${P} SELECT ?l FROM ${doc(612)} WHERE { ${id(612)} rdfs:label ?l } ORDER BY ?l`,
      `${P} SELECT ?l WHERE { ${id(613)} rdfs:label ?l } LIMIT 1`,
      `${P} ASK { ${id(614)} v:address ?x }`,
      // A term the store never saw matches nothing, and costs no look-up either.
      'SELECT ?l WHERE { <http://example.org/never-crawled> rdfs:label ?l }',
    ];
    // Several times each, at other instants too: the statement is kept prepared on the server, and from its
    // sixth run on PostgreSQL may run a generic plan of it, which must answer as the first runs did.
    // From the store's second read-ahead on, through its own connection on this thread, not the connection thread.
    await runQuery(postgres, cases[0]!, { at });
    for (const [k, q] of [...cases, ...cases, ...cases].entries()) {
      const t = k < cases.length ? at : instants[k % instants.length]![1];
      const before = postgres.roundTrips;
      const threadBefore = postgres.threadCalls;
      const r = await runQuery(postgres, q, { at: t });
      const trips = postgres.roundTrips - before;
      expect(r.plan, q).toBe('patterns');
      expect(trips, q).toBe(1);
      expect(postgres.threadCalls - threadBefore, q).toBe(0);
      expect(r.body, q).toBe((await runQuery(sqlite, q, { at: t })).body);
    }
    const none = await runQuery(postgres, cases.at(-1)!, { at, format: 'json' });
    expect(JSON.parse(none.body).results.bindings).toEqual([]);
    const some = await runQuery(postgres, cases[0]!, { at, format: 'json' });
    expect(JSON.parse(some.body).results.bindings.length).toBeGreaterThan(0);
  });

  it('prints the same bytes for every query at every instant, through both of the planner’s paths', async () => {
    const plans = new Set<string>();
    for (const [instant, at] of instants) {
      for (const [name, q] of QUERIES) {
        const reference = await runQuery(sqlite, q, { at, plan: 'snapshot' });
        for (const plan of ['auto', 'patterns', 'snapshot'] as const) {
          if (plan === 'patterns' && name.startsWith('DESCRIBE')) continue; // needs every node: only the snapshot answers it
          const r = await runQuery(postgres, q, { at, plan });
          plans.add(`${plan}:${r.plan}`);
          expect(r.body, `${name} ${instant} (${plan} on PostgreSQL)`).toBe(reference.body);
        }
        expect((await runQuery(sqlite, q, { at })).body, `${name} ${instant} (auto on SQLite)`).toBe(reference.body);
      }
    }
    // The planner chose by itself both ways on PostgreSQL: patterns for the selective queries, the snapshot for the rest.
    expect(plans).toContain('auto:patterns');
    expect(plans).toContain('auto:snapshot');
  }, 600_000);

  it('Diff between two instants is the same', () => {
    const [t1, t2] = [instants[1]![1], instants[3]![1]];
    const sort = (rows: Array<{ graph: string; s: string; p: string; o: string }>) => rows.map((r) => `${r.graph} ${r.s} ${r.p} ${r.o}`).sort();
    const [a, b] = [sqlite.delta(t1, t2), postgres.delta(t1, t2)];
    expect(sort(b.added)).toEqual(sort(a.added));
    expect(sort(b.removed)).toEqual(sort(a.removed));
    expect(b.added.length).toBeGreaterThan(0);
  });

  it('a catch-up killed half-way resumes where it stopped: nothing doubled, indexes restored, the same answers', async () => {
    const killedUrl = isolatedSchemaUrl(pgBase!, 'dm_pgv');
    try {
      const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run-ts.mjs'), path.join(repoRoot, 'test/query/fixtures/catch-up-stalls.ts'), dataDir, '400', killedUrl], { stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise((r) => child.once('exit', r));
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const first = await new Promise<CatchUpProgress>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
          if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
        });
        child.once('exit', (code) => reject(new Error(`the indexer exited (${code}) before its first batch: ${err}`)));
      });
      expect(first).toMatchObject({ phase: 'versions', done: 400 });
      const meanwhile = new PgVersionArchive(killedUrl);
      try {
        // The loader's session is alive: its read indexes stay down for it to build once.
        expect(meanwhile.liveBulkLoader()).toBeDefined();
        expect(meanwhile.missingIndexes().length).toBeGreaterThan(0);
        // Its first batch, committed: the progress line is printed once the COMMIT is sent, which the store's
        // connection thread finishes while the loader stalls (on a loaded machine, a moment later).
        for (let i = 0; i < 200 && meanwhile.indexedLogId() !== 400; i++) await new Promise((r) => setTimeout(r, 100));
        expect(meanwhile.indexedLogId()).toBe(400);
      } finally {
        child.kill('SIGKILL');
        await exited;
      }
      // The server ends the killed process's session when it sees the socket close.
      for (let i = 0; i < 100 && meanwhile.liveBulkLoader() !== undefined; i++) await new Promise((r) => setTimeout(r, 100));
      expect(meanwhile.liveBulkLoader()).toBeUndefined();
      const resumed = await indexInto(meanwhile, dataDir);
      try {
        const total = sqlite.indexedLogId()!;
        expect(resumed.rows).toBe(total - 400); // only the rows after the committed batch
        expect(resumed.failed).toBe(0);
        expect(meanwhile.missingIndexes()).toEqual([]);
        expect(await doubledRows(killedUrl)).toBe(0);
        expect({ ...meanwhile.stats(), file: '', bytes: 0 }).toEqual({ ...sqlite.stats(), file: '', bytes: 0 });
        for (const [, at] of instants) {
          // Every row of the queries' patterns, not the first-solutions plan: a resumed load numbers a
          // version's rows otherwise than a straight one, and an unordered LIMIT may then take other (as right) solutions.
          for (const [, q] of QUERIES.slice(0, 6)) expect((await runQuery(meanwhile, q, { at, plan: 'patterns' })).body).toBe((await runQuery(sqlite, q, { at, plan: 'patterns' })).body);
        }
      } finally {
        await meanwhile.close();
      }
    } finally {
      await dropSchema(killedUrl);
    }
  }, 600_000);

  // Last: it writes to both stores.
  it('with the snapshot of "now" loaded, a selective query costs one round trip, whether another process wrote since or not', async () => {
    const now = instants[3]![1];
    const q = 'SELECT ?l WHERE { <http://example.org/late#it> rdfs:label ?l }';
    for (const store of [sqlite, postgres]) await runQuery(store, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', { at: now, plan: 'snapshot' });
    let before = postgres.roundTrips;
    const unchanged = await runQuery(postgres, q, { at: now, format: 'json' });
    expect(postgres.roundTrips - before).toBe(1);
    expect(unchanged.plan).toBe('snapshot');
    expect(JSON.parse(unchanged.body).results.bindings).toEqual([]);
    const late = [quad(namedNode('http://example.org/late#it'), namedNode('http://www.w3.org/2000/01/rdf-schema#label'), literal('late'))];
    const writer = new PgVersionArchive(url);
    try {
      await writer.putVersion('http://example.org/late', T0 + 1e9, late);
    } finally {
      await writer.close();
    }
    await sqlite.putVersion('http://example.org/late', T0 + 1e9, late);
    sqlite.flush();
    before = postgres.roundTrips;
    const written = await runQuery(postgres, q, { at: now, format: 'json' });
    expect(postgres.roundTrips - before).toBe(1);
    expect(written.plan).toBe('patterns');
    expect(JSON.parse(written.body).results.bindings).toEqual([{ l: { type: 'literal', value: 'late' } }]);
    expect(written.body).toBe((await runQuery(sqlite, q, { at: now, format: 'json' })).body);
  });

  // After the test above: it writes to both stores.
  it('a query right after this store wrote reads the write, though the read-ahead has a connection of its own', async () => {
    const now = instants[3]![1];
    const label = (doc: string) => `SELECT ?l WHERE { <${doc}#it> rdfs:label ?l }`;
    const write = (doc: string, text: string) => {
      const quads = [quad(namedNode(`${doc}#it`), namedNode('http://www.w3.org/2000/01/rdf-schema#label'), literal(text))];
      return Promise.all([postgres.putVersion(doc, T0 + 2e9, quads), sqlite.putVersion(doc, T0 + 2e9, quads)]).then(() => sqlite.flush());
    };
    await runQuery(postgres, label('http://example.org/own'), { at: now }); // the store's first read-ahead goes through the thread
    // The commit is sent on the thread's connection and not waited for: the read-ahead must wait for it. Made
    // slow for certain: another session holds the generation's row, which the commit updates, for a while.
    const u = new URL(url);
    const schema = u.searchParams.get('schema')!;
    u.searchParams.delete('schema');
    const holder = new pg.Client({ connectionString: u.toString() });
    await holder.connect();
    let own;
    let before = 0;
    let threadBefore = 0;
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "${schema}".vs_meta WHERE key = 'generation' FOR UPDATE`);
      const released = holder.query('SELECT pg_sleep(0.3); COMMIT');
      await write('http://example.org/own', 'own');
      before = postgres.roundTrips;
      threadBefore = postgres.threadCalls;
      own = await runQuery(postgres, label('http://example.org/own'), { at: now, format: 'json' });
      await released;
    } finally {
      await holder.end();
    }
    expect(postgres.roundTrips - before).toBe(1);
    expect(postgres.threadCalls - threadBefore).toBe(0);
    expect(own.plan).toBe('patterns');
    expect(JSON.parse(own.body).results.bindings).toEqual([{ l: { type: 'literal', value: 'own' } }]);
    // A write begun while the read-ahead is on its way: its answer, older than the write, is not taken; the
    // query reads through the thread, after the write's commit.
    const send = AsyncPg.prototype.query;
    const spy = vi.spyOn(AsyncPg.prototype, 'query').mockImplementationOnce(function (this: AsyncPg, statement) {
      const answer = send.call(this, statement);
      void write('http://example.org/meanwhile', 'meanwhile');
      return answer;
    });
    try {
      before = postgres.roundTrips;
      const meanwhile = await runQuery(postgres, label('http://example.org/meanwhile'), { at: now, format: 'json' });
      expect(spy).toHaveBeenCalledTimes(1);
      expect(JSON.parse(meanwhile.body).results.bindings).toEqual([{ l: { type: 'literal', value: 'meanwhile' } }]);
      expect(meanwhile.body).toBe((await runQuery(sqlite, label('http://example.org/meanwhile'), { at: now, format: 'json' })).body);
    } finally {
      spy.mockRestore();
    }
  });

  // Last: the store then reads ahead through the thread for a minute.
  it('a read-ahead connection that the server ends costs no answer: the thread\'s connection reads until it is made again', async () => {
    const at = instants[1]![1];
    const q = (i: number) => `${P} SELECT ?l WHERE { ${id(i)} rdfs:label ?l } ORDER BY ?l`;
    await runQuery(postgres, q(801), { at });
    await runQuery(postgres, q(802), { at }); // the read-ahead's own connection is up
    const u = new URL(url);
    const schema = u.searchParams.get('schema')!;
    u.searchParams.delete('schema');
    const admin = new pg.Client({ connectionString: u.toString() });
    await admin.connect();
    try {
      const ended = await admin.query('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1', [`datamonitor read-ahead ${schema}`.slice(0, 63)]);
      expect(ended.rows).toEqual([{ ok: true }]);
    } finally {
      await admin.end();
    }
    for (const i of [803, 804]) {
      const threadBefore = postgres.threadCalls;
      const r = await runQuery(postgres, q(i), { at });
      expect(r.body).toBe((await runQuery(sqlite, q(i), { at })).body);
      expect(JSON.parse((await runQuery(postgres, q(i), { at, format: 'json' })).body).results.bindings.length).toBeGreaterThan(0);
      expect(postgres.threadCalls - threadBefore).toBeGreaterThanOrEqual(1);
    }
  });
});
