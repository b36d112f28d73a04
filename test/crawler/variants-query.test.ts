import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { exportArchive } from '../../src/archive/export.ts';
import { openStore } from '../../src/store/index.ts';
import { runQuery } from '../../src/query/sparql.ts';
import { VersionIndex } from '../../src/versions/version-index.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, LOADED_TIMEOUT_MS, runMainOk, tempDir } from '../helpers.ts';
import { catchUpVersions } from '../../src/versions/catch-up.ts';
import { PgVersionArchive } from '../../src/versions/pg-store.ts';
import { dropSchema, isolatedSchemaUrl, pgBaseUrl } from '../store/pg.ts';

const pgBase = await pgBaseUrl();

/**
 * The alternates `crawl --variants` fetches (Link: rel="alternate") are documents of their own in the
 * archive, but not the document's data: the query index states `<alt> dm:alternateOf <doc>` in
 * dm:provenance and keeps their triples out of the default dataset, a disagreeing one included, unless a
 * query names them (FROM, FROM NAMED, the protocol's dataset, --graph), as replay and Memento show only the
 * document's own representation (README, "Every representation a server offers").
 */
type Bindings = { results: { bindings: Array<Record<string, { value: string }>> } };

describe('alternates in the query index', () => {
  let server: TestServer;
  let doc = '';
  const dataDir = tempDir();
  const query = async (sparql: string, extra: string[] = []): Promise<string[][]> => {
    const json = JSON.parse(await runMainOk(['query', '--data', dataDir, '--json', sparql, ...extra])) as Bindings;
    return json.results.bindings.map((b) => Object.keys(b).sort().map((k) => b[k]!.value));
  };

  beforeAll(async () => {
    server = await startServer((_req, res, u) => {
      const me = `${server.url}/doc#me`;
      if (u.pathname === '/doc') {
        return res.writeHead(200, {
          'content-type': 'text/turtle',
          link: '</doc.nt>; rel="alternate"; type="application/n-triples", </doc.jsonld>; rel="alternate"; type="application/ld+json"',
        }).end(`<${me}> <https://schema.org/name> "Ada Lovelace" .\n`);
      }
      // Agrees with the document.
      if (u.pathname === '/doc.nt') return res.writeHead(200, { 'content-type': 'application/n-triples' }).end(`<${me}> <https://schema.org/name> "Ada Lovelace" .\n`);
      // Disagrees: another name.
      if (u.pathname === '/doc.jsonld') return res.writeHead(200, { 'content-type': 'application/ld+json' }).end(JSON.stringify({ '@id': me, 'https://schema.org/name': 'Ada Byron' }));
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    doc = `${server.url}/doc`;
    await crawl({ seeds: [doc], dataDir, depth: 0, delayMs: 0, allowPrivate: true, vocabularies: false, robots: false, variants: true }).run();
    const reasons = crawlLog(dataDir).map((e) => `${e.url} ${e.reason}`);
    // The crawl as it was: each alternate captured as a document, then compared.
    expect(reasons).toEqual(expect.arrayContaining([`${doc}.nt variant`, `${doc}.jsonld variant-mismatch`]));
  }, LOADED_TIMEOUT_MS);
  afterAll(() => server?.close());

  it('the default dataset holds the document\'s own triples only, whatever the plan', async () => {
    const names = 'SELECT ?name WHERE { ?s <https://schema.org/name> ?name }';
    expect(await query(names)).toEqual([['Ada Lovelace']]);
    const store = await openStore(dataDir);
    const index = VersionIndex.open(dataDir, store);
    try {
      const archive = await index.current();
      const values = (r: { body: string }) => (JSON.parse(r.body) as Bindings).results.bindings.map((b) => Object.values(b).map((v) => v.value));
      for (const plan of ['snapshot', 'patterns'] as const) {
        const r = await runQuery(archive, names, { plan });
        expect([r.plan, values(r)]).toEqual([plan, [['Ada Lovelace']]]);
        const g = await runQuery(archive, 'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s <https://schema.org/name> ?name } }', { plan });
        expect(values(g)).toEqual([[doc]]);
      }
    } finally {
      await index.close();
      await store.close();
    }
  }, LOADED_TIMEOUT_MS);

  it('marks each alternate with dm:alternateOf in dm:provenance, visible by default', async () => {
    expect(await query('SELECT ?a ?d WHERE { GRAPH dm:provenance { ?a dm:alternateOf ?d } } ORDER BY ?a')).toEqual([
      [`${doc}.jsonld`, doc],
      [`${doc}.nt`, doc],
    ]);
    // export --provenance states the same fact.
    const store = await openStore(dataDir);
    try {
      let text = '';
      await exportArchive(store, dataDir, 'nquads', (s) => void (text += s), { provenance: true });
      expect(text).toContain(`<${doc}.jsonld> <https://w3id.org/datamonitor/ns#alternateOf> <${doc}>`);
    } finally {
      await store.close();
    }
  }, LOADED_TIMEOUT_MS);

  it('an alternate is there when a query names it', async () => {
    expect(await query(`SELECT ?name FROM <${doc}.jsonld> WHERE { ?s <https://schema.org/name> ?name }`)).toEqual([['Ada Byron']]);
    expect(await query(`SELECT ?name FROM NAMED <${doc}.jsonld> WHERE { GRAPH ?g { ?s <https://schema.org/name> ?name } }`)).toEqual([['Ada Byron']]);
    expect(await query('SELECT ?name WHERE { ?s <https://schema.org/name> ?name } ORDER BY ?name', ['--graph', `${doc}.jsonld`, '--graph', doc])).toEqual([['Ada Byron'], ['Ada Lovelace']]);
  }, LOADED_TIMEOUT_MS);

  it.skipIf(!pgBase)('the same in a PostgreSQL index, whose flag of alternates is read with the generation', async () => {
    const url = isolatedSchemaUrl(pgBase!, 'dm_alt');
    const store = await openStore(dataDir);
    const archive = new PgVersionArchive(url);
    try {
      await catchUpVersions(archive, store, dataDir);
      const r = await runQuery(archive, 'SELECT ?name WHERE { ?s <https://schema.org/name> ?name }', { format: 'json' });
      expect((JSON.parse(r.body) as Bindings).results.bindings.map((b) => b.name!.value)).toEqual(['Ada Lovelace']);
      expect(archive.mayHoldAlternates()).toBe(true);
      const named = await runQuery(archive, `SELECT ?name FROM <${doc}.jsonld> WHERE { ?s <https://schema.org/name> ?name }`, { format: 'json' });
      expect((JSON.parse(named.body) as Bindings).results.bindings.map((b) => b.name!.value)).toEqual(['Ada Byron']);
    } finally {
      await archive.close();
      await store.close();
      await dropSchema(url);
    }
  }, LOADED_TIMEOUT_MS);
});
