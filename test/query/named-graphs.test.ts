import path from 'node:path';
import Database from 'better-sqlite3';
import { Parser } from 'n3';
import { openVersionStore } from '../../src/versions/sqlite-store.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { exportArchive } from '../../src/archive/export.ts';
import { withStore } from '../../src/store/index.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { queryCommand } from '../../src/cli/commands/query.ts';
import { diffCommand } from '../../src/cli/commands/diff.ts';
import { crawlLog, LOADED_TIMEOUT_MS, tempDir } from '../helpers.ts';

/**
 * A TriG document of several named graphs (one named by a blank node, one holding a blank node) and a
 * default graph, changed between two crawls: each quad keeps its own graph in query, export and diff,
 * while the document stays the unit of versioning.
 */
const PREFIX = '@prefix ex: <http://example.org/> .\n';
const V1 = `${PREFIX}ex:a ex:p "default" .
ex:g1 { ex:s ex:p "one" . ex:s ex:addr [ ex:street "street 1" ] . }
ex:g2 { ex:t ex:p "two" . }
_:bg { ex:u ex:p "in a blank graph" . }
`;
const V2 = `${PREFIX}ex:a ex:p "default" .
ex:g1 { ex:s ex:p "uno" . ex:s ex:addr [ ex:street "street 2" ] . }
ex:g2 { ex:t ex:p "two" . }
_:bg { ex:u ex:p "in a blank graph" . }
`;

const iso = (ms: number) => new Date(ms).toISOString();
const rows = (json: string) => JSON.parse(json).results.bindings.map((b: Record<string, { value: string; type: string }>) =>
  Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.type === 'bnode' ? '_:' : v.value])));

describe('named graphs of quad formats are kept as a dataset inside the document version', () => {
  let server: TestServer;
  let body = V1;
  const dir = tempDir();
  let doc: string;
  let t1: number;
  let t2: number;
  beforeAll(async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/trig' });
      res.end(body);
    });
    doc = `${server.url}/data.trig`;
    await crawl({ seeds: [doc], dataDir: dir, depth: 0, delayMs: 0, allowPrivate: true, noFollow: true }).run();
    body = V2;
    await new Promise((r) => setTimeout(r, 5)); // two distinct instants for the two versions
    await crawl({ seeds: [doc], dataDir: dir, depth: 0, delayMs: 0, allowPrivate: true, noFollow: true, refetch: true }).run();
    [t1, t2] = crawlLog(dir).filter((r) => r.url === doc).map((r) => r.time as number);
  }, LOADED_TIMEOUT_MS);
  afterAll(() => server.close());

  it('query sees each quad in its own graph at each time, the default graph in the document, and the document of a named graph', async () => {
    const q = 'SELECT ?g ?o WHERE { GRAPH ?g { <http://example.org/s> <http://example.org/p> ?o } }';
    expect(rows(await queryCommand(q, { data: dir, json: true, at: iso(t1) }))).toEqual([{ g: 'http://example.org/g1', o: 'one' }]);
    expect(rows(await queryCommand(q, { data: dir, json: true, at: iso(t2) }))).toEqual([{ g: 'http://example.org/g1', o: 'uno' }]);
    const street = 'SELECT ?street WHERE { GRAPH <http://example.org/g1> { <http://example.org/s> <http://example.org/addr> ?b . ?b <http://example.org/street> ?street } }';
    expect(rows(await queryCommand(street, { data: dir, json: true, at: iso(t1) }))).toEqual([{ street: 'street 1' }]);
    expect(rows(await queryCommand(street, { data: dir, json: true }))).toEqual([{ street: 'street 2' }]);
    const blank = 'SELECT ?g WHERE { GRAPH ?g { <http://example.org/u> ?p ?o } }';
    expect(rows(await queryCommand(blank, { data: dir, json: true }))).toEqual([{ g: '_:' }]);
    const dflt = `SELECT ?s WHERE { GRAPH <${doc}> { ?s ?p ?o } }`;
    expect(rows(await queryCommand(dflt, { data: dir, json: true }))).toEqual([{ s: 'http://example.org/a' }]);
    const owner = 'SELECT ?d WHERE { GRAPH <https://w3id.org/datamonitor/ns#graphs> { <http://example.org/g2> <https://w3id.org/datamonitor/ns#inDocument> ?d } }';
    expect(rows(await queryCommand(owner, { data: dir, json: true }))).toEqual([{ d: doc }]);
    // Still one document with two versions: the named graphs are inside it.
    expect(await queryCommand(undefined, { data: dir, list: true })).toContain(`${doc}  2 versions`);
  }, LOADED_TIMEOUT_MS);

  it('query --changes and --versions follow the quads of a named graph, and the graph index holds while the graph does', async () => {
    const q = 'SELECT ?g ?o WHERE { GRAPH ?g { <http://example.org/s> <http://example.org/p> ?o } }';
    const changes = JSON.parse(await queryCommand(q, { data: dir, json: true, changes: true }));
    expect(changes.map((c: { time: string; added: number; removed: number }) => [c.time, c.added, c.removed])).toEqual([[iso(t1), 1, 0], [iso(t2), 1, 1]]);
    const owner = 'SELECT ?d WHERE { GRAPH <https://w3id.org/datamonitor/ns#graphs> { <http://example.org/g1> <https://w3id.org/datamonitor/ns#inDocument> ?d } }';
    const ownerChanges = JSON.parse(await queryCommand(owner, { data: dir, json: true, changes: true }));
    expect(ownerChanges.map((c: { time: string; added: number; removed: number }) => [c.time, c.added, c.removed])).toEqual([[iso(t1), 1, 0]]);
    const ver = JSON.parse(await queryCommand('<http://example.org/s> <http://example.org/p> ?o', { data: dir, json: true, versions: true }));
    expect(ver.map((v: { quad: { o: string; graph: string; namedGraph?: string } }) => [v.quad.o, v.quad.graph, v.quad.namedGraph]).sort())
      .toEqual([['"one"', doc, '<http://example.org/g1>'], ['"uno"', doc, '<http://example.org/g1>']]);
    const text = await queryCommand('<http://example.org/s> <http://example.org/p> ?o', { data: dir, versions: true });
    expect(text).toContain(`# ${doc} (graph <http://example.org/g1>)`);
  }, LOADED_TIMEOUT_MS);

  it('export --format nquads writes the named graphs as they were, the default graph in the document', async () => {
    const out = await withStore(dir, undefined, async (store) => {
      let text = '';
      await exportArchive(store, dir, 'nquads', (s) => (text += s), { provenance: true });
      return text;
    }, { readonly: true });
    expect(out).toContain(`<http://example.org/a> <http://example.org/p> "default" <${doc}> .`);
    expect(out).toContain('<http://example.org/s> <http://example.org/p> "uno" <http://example.org/g1> .');
    expect(out).toContain('<http://example.org/t> <http://example.org/p> "two" <http://example.org/g2> .');
    expect(out).toMatch(/^<http:\/\/example.org\/u> <http:\/\/example.org\/p> "in a blank graph" _:\S+ \.$/m);
    expect(out).toMatch(/<http:\/\/example.org\/s> <http:\/\/example.org\/addr> _:\S+ <http:\/\/example.org\/g1> \./);
    expect(out).toContain(`<http://example.org/g1> <https://w3id.org/datamonitor/ns#inDocument> <${doc}> <https://w3id.org/datamonitor/ns#provenance> .`);
    expect(out).not.toContain('"one"');
  }, LOADED_TIMEOUT_MS);

  it('diff names the graph of each changed quad, and leaves the unchanged named graphs out', async () => {
    const { text } = await diffCommand(doc, { data: dir, from: iso(t1), to: iso(t2) });
    const lines = text.trim().split('\n');
    expect(lines).toContain('- <http://example.org/s> <http://example.org/p> "one" <http://example.org/g1> .');
    expect(lines).toContain('+ <http://example.org/s> <http://example.org/p> "uno" <http://example.org/g1> .');
    expect(lines.some((l) => /^\+ _:\S+ <http:\/\/example.org\/street> "street 2" <http:\/\/example.org\/g1> \.$/.test(l))).toBe(true);
    expect(text).not.toContain('"two"');
    expect(text).not.toContain('"default"');
    expect(text).not.toContain('blank graph');
    const all = JSON.parse((await diffCommand(undefined, { data: dir, from: iso(t1), to: iso(t2), json: true })).text);
    expect(all.added).toContain('<http://example.org/s> <http://example.org/p> "uno" <http://example.org/g1> .');
    // The diff cancels a quad closed and opened again at the same instant; its rows do not: the unchanged quad
    // of a named graph keeps the one interval it began with (the writer matched it, its graph included).
    const store = openVersionStore(dir, { readonly: true });
    try {
      const two = store.patternVersions({ s: { variable: 's' }, p: { variable: 'p' }, o: { term: '"two"' } });
      expect(two.map((v) => v.intervals)).toEqual([[{ from: t1 }]]);
    } finally {
      await store.close();
    }
  }, LOADED_TIMEOUT_MS);

  it('an index made before named graphs is migrated and rebuilt from the WARC records when it is opened', async () => {
    await queryCommand('ASK {}', { data: dir });
    // Put the index back in its old shape: no named-graph column, every quad in its document's graph.
    const db = new Database(path.join(dir, 'versions.sqlite'));
    db.exec('DROP INDEX quads_by_ng; UPDATE quads SET ng = NULL; ALTER TABLE quads DROP COLUMN ng;');
    db.close();
    const q = 'SELECT ?g WHERE { GRAPH ?g { <http://example.org/t> ?p ?o } }';
    expect(rows(await queryCommand(q, { data: dir, json: true }))).toEqual([{ g: 'http://example.org/g2' }]);
    expect(await queryCommand(undefined, { data: dir, list: true })).toContain(`${doc}  2 versions`);
  }, LOADED_TIMEOUT_MS);
});

describe('a versioned store from before named graphs, opened read-only', () => {
  it('answers as it did (every quad in its document graph) without being migrated', async () => {
    const dir = tempDir();
    const archive = openVersionStore(dir);
    const quads = new Parser({ format: 'TriG' }).parse('<http://example.org/s> <http://example.org/p> "o" .');
    await archive.putVersion('http://example.org/doc', Date.UTC(2025, 0, 1), quads);
    await archive.close();
    const db = new Database(path.join(dir, 'versions.sqlite'));
    db.exec('DROP INDEX quads_by_ng; ALTER TABLE quads DROP COLUMN ng;');
    db.close();
    const old = openVersionStore(dir, { readonly: true });
    try {
      expect([...old.snapshot(Date.UTC(2026, 0, 1))]).toEqual([{ graph: 'http://example.org/doc', s: '<http://example.org/s>', p: '<http://example.org/p>', o: '"o"' }]);
      expect(old.delta(0, Date.UTC(2026, 0, 1)).added).toHaveLength(1);
    } finally {
      await old.close();
    }
    const columns = new Database(path.join(dir, 'versions.sqlite'), { readonly: true });
    expect(columns.prepare('PRAGMA table_info(quads)').all().map((c) => (c as { name: string }).name)).not.toContain('ng');
    columns.close();
  }, LOADED_TIMEOUT_MS);
});
