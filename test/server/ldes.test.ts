import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { isomorphic } from 'rdf-isomorphic';
import { startServer as startArchiveServer } from '../../src/server/index.ts';
import { openVersionStore, PgVersionArchive, type VersionedGraphStore } from '../../src/query/index.ts';
import type { HistoryReads } from '../../src/versions/backend.ts';
import { buildFragment, parseFragmentQuery, writeFragment } from '../../src/server/ldes.ts';
import { dropSchema, isolatedSchemaUrl, pgBaseUrl } from '../store/pg.ts';
import { openStore } from '../../src/store/index.ts';
import { LOADED_TIMEOUT_MS, tempDir } from '../helpers.ts';
import { DAY, T0, turtle } from '../query/helpers.ts';

/**
 * The shape of /ldes over HTTP: the stream's description, windows linked by TREE relations on
 * prov:generatedAtTime, a split window, pages of two members with a next-page link, members with their
 * graphs, a deletion, caching, and 400s that say what to give. The archive is written through the versioned
 * store's API in 2025: every window is long closed.
 */
const TREE = 'https://w3id.org/tree#';
const LDES = 'https://w3id.org/ldes#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const TIME = 'http://www.w3.org/ns/prov#generatedAtTime';
const VERSION_OF = 'http://purl.org/dc/terms/isVersionOf';
const HOUR = 3_600_000;

const DOCS = ['http://example.org/a.ttl', 'http://example.org/b.ttl', 'http://example.org/c.ttl'];
const GRAPHS = ['ex:a ex:v 1 ; ex:k [ ex:v 2 ] .', 'ex:b ex:v 1 .', 'ex:c ex:v 1 .'];
const A2 = 'ex:a ex:v 3 .';

const objects = (quads: Quad[], s: string, p: string) => quads.filter((q) => q.subject.value === s && q.predicate.value === p).map((q) => q.object);

interface Relation { type: string; value: string; node: string }
function relations(quads: Quad[], node: string): Relation[] {
  return objects(quads, node, `${TREE}relation`).map((r) => ({
    type: objects(quads, r.value, RDF_TYPE)[0]!.value.replace(TREE, ''),
    value: objects(quads, r.value, `${TREE}value`)[0]!.value,
    node: objects(quads, r.value, `${TREE}node`)[0]!.value,
  })).sort((x, y) => `${x.node} ${x.type}`.localeCompare(`${y.node} ${y.type}`));
}

/** The versions every test here archives: three documents at one instant, a change and a deletion, an unchanged capture. */
async function writeVersions(archive: VersionedGraphStore): Promise<void> {
  // More than a page of two at one instant, a change and a deletion the next day, and a capture of an
  // unchanged graph the day after: no change, no member, no window.
  for (const [i, doc] of DOCS.entries()) await archive.putVersion(doc, T0, turtle(GRAPHS[i]!));
  await archive.putVersion(DOCS[0]!, T0 + DAY + HOUR, turtle(A2));
  await archive.deleteGraph(DOCS[1]!, T0 + DAY + 2 * HOUR);
  await archive.putVersion(DOCS[2]!, T0 + 2 * DAY, turtle(GRAPHS[2]!));
}

describe('the LDES over HTTP', () => {
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    const dataDir = tempDir('dm-ldes-http-');
    const archive = openVersionStore(dataDir);
    await writeVersions(archive);
    await archive.close();
    const store = await openStore(dataDir);
    await store.init();
    await store.close();
    ({ app, url: base } = await startArchiveServer({ dataDir, ldesPageSize: 2, port: 0 }));
  }, LOADED_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
  });

  const get = async (url: string, accept = 'application/trig') => {
    const res = await fetch(url.startsWith('http') ? url : `${base}${url}`, { headers: { accept } });
    const body = await res.text();
    const quads = res.ok ? (new N3.Parser({ format: accept === 'application/n-quads' ? 'application/n-quads' : 'application/trig' }).parse(body) as Quad[]) : [];
    return { status: res.status, type: res.headers.get('content-type') ?? '', cache: res.headers.get('cache-control') ?? '', body, quads };
  };
  const iso = (ms: number) => new Date(ms).toISOString();
  const windowUrl = (from: number, to: number) => `${base}/ldes?from=${iso(from)}&to=${iso(to)}`;

  it('the root: the event stream, its paths, the retention policy and a pair of relations per day with changes', async () => {
    const root = await get('/ldes');
    expect(root.status).toBe(200);
    expect(root.type).toMatch(/^application\/trig/);
    expect(root.cache).not.toMatch(/immutable/); // new changes come in today's window
    const stream = `${base}/ldes#stream`;
    expect(objects(root.quads, stream, RDF_TYPE).map((t) => t.value)).toEqual([`${LDES}EventStream`]);
    expect(objects(root.quads, stream, `${TREE}view`).map((t) => t.value)).toEqual([`${base}/ldes`]);
    expect(objects(root.quads, stream, `${LDES}timestampPath`).map((t) => t.value)).toEqual([TIME]);
    expect(objects(root.quads, stream, `${LDES}versionOfPath`).map((t) => t.value)).toEqual([VERSION_OF]);
    const policy = objects(root.quads, `${base}/ldes`, `${LDES}retentionPolicy`)[0]!;
    expect(objects(root.quads, policy.value, `${LDES}startingFrom`).map((t) => t.value)).toEqual([iso(T0)]);
    // Two days hold changes (3 and 2); the third day's capture changed nothing.
    expect(relations(root.quads, `${base}/ldes`)).toEqual([
      { type: 'GreaterThanOrEqualToRelation', value: iso(T0), node: windowUrl(T0, T0 + DAY) },
      { type: 'LessThanRelation', value: iso(T0 + DAY), node: windowUrl(T0, T0 + DAY) },
      { type: 'GreaterThanOrEqualToRelation', value: iso(T0 + DAY), node: windowUrl(T0 + DAY, T0 + 2 * DAY) },
      { type: 'LessThanRelation', value: iso(T0 + 2 * DAY), node: windowUrl(T0 + DAY, T0 + 2 * DAY) },
    ]);
  });

  it('a window with more changes than a page is split; an instant with more is paged; every fragment is immutable once closed', async () => {
    // The first day (3 changes at one instant) splits by hour, minute, second, down to the millisecond.
    let url = windowUrl(T0, T0 + DAY);
    for (const width of [HOUR, 60_000, 1000, 1]) {
      const f = await get(url);
      expect(f.cache, url).toMatch(/immutable/);
      expect(objects(f.quads, `${base}/ldes#stream`, `${TREE}member`), url).toEqual([]);
      const rel = relations(f.quads, url);
      expect(rel.map((r) => [r.type, r.value]), url).toEqual([['GreaterThanOrEqualToRelation', iso(T0)], ['LessThanRelation', iso(T0 + width)]]);
      url = rel[0]!.node;
    }
    expect(url).toBe(windowUrl(T0, T0 + 1));
    const first = await get(url);
    const members1 = objects(first.quads, `${base}/ldes#stream`, `${TREE}member`).map((m) => m.value);
    expect(members1).toHaveLength(2);
    const next = relations(first.quads, url);
    expect(next.map((r) => [r.type, r.value])).toEqual([['GreaterThanOrEqualToRelation', iso(T0)], ['LessThanRelation', iso(T0 + 1)]]);
    expect(next[0]!.node).toMatch(/&after=2025-01-01T00:00:00\.000Z~\d+$/);
    const second = await get(next[0]!.node);
    expect(second.cache).toMatch(/immutable/);
    const members2 = objects(second.quads, `${base}/ldes#stream`, `${TREE}member`).map((m) => m.value);
    expect(members2).toHaveLength(1);
    expect(relations(second.quads, next[0]!.node)).toEqual([]);

    // The three documents' first versions, each once, each with its graph as the store was given it.
    const all = [...first.quads, ...second.quads];
    const members = [...members1, ...members2];
    expect(members.map((m) => objects(all, m, VERSION_OF)[0]!.value).sort()).toEqual(DOCS);
    for (const m of members) {
      const doc = objects(all, m, VERSION_OF)[0]!.value;
      const time = objects(all, m, TIME)[0]!;
      expect(time.termType === 'Literal' && time.datatype.value).toBe('http://www.w3.org/2001/XMLSchema#dateTime');
      expect(time.value).toBe(iso(T0));
      const graph: Quad[] = all.filter((q) => q.graph.value === m).map((q) => N3.DataFactory.quad(q.subject, q.predicate, q.object));
      expect(isomorphic(graph, turtle(GRAPHS[DOCS.indexOf(doc)]!)), doc).toBe(true);
    }
  });

  it('the second day: a change and a deletion, the deletion typed as:Delete with no graph; a member\'s IRI dereferences', async () => {
    const day = await get(windowUrl(T0 + DAY, T0 + 2 * DAY));
    const members = objects(day.quads, `${base}/ldes#stream`, `${TREE}member`).map((m) => m.value);
    expect(members.map((m) => objects(day.quads, m, VERSION_OF)[0]!.value)).toEqual([DOCS[0], DOCS[1]]);
    const [changed, deleted] = members as [string, string];
    const graph: Quad[] = day.quads.filter((q) => q.graph.value === changed).map((q) => N3.DataFactory.quad(q.subject, q.predicate, q.object));
    expect(isomorphic(graph, turtle(A2))).toBe(true);
    expect(objects(day.quads, deleted, RDF_TYPE).map((t) => t.value)).toEqual(['https://www.w3.org/ns/activitystreams#Delete']);
    expect(day.quads.filter((q) => q.graph.value === deleted)).toEqual([]);
    expect(objects(day.quads, `${base}/ldes#stream`, `${LDES}versionDeleteObject`)).toEqual([]); // said once, at the root
    const root = await get('/ldes');
    expect(objects(root.quads, `${base}/ldes#stream`, `${LDES}versionDeleteObject`).map((t) => t.value)).toEqual(['https://www.w3.org/ns/activitystreams#Delete']);

    // A member's IRI answers with the member alone; one the archive does not hold is 404, a malformed one 400.
    const alone = await get(changed);
    expect(alone.status).toBe(200);
    expect(alone.cache).toMatch(/immutable/);
    expect(isomorphic(alone.quads, day.quads.filter((q) => q.subject.value === changed || q.object.value === changed || q.graph.value === changed))).toBe(true);
    expect(objects((await get(deleted)).quads, deleted, RDF_TYPE).map((t) => t.value)).toEqual(['https://www.w3.org/ns/activitystreams#Delete']);
    expect((await get(changed.replace(iso(T0 + DAY + HOUR), iso(T0 + DAY)))).status).toBe(404);
    const bad = await get(`${base}/ldes/version/yesterday/${DOCS[0]}`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/xsd:dateTime in UTC/);

    // The same fragment in N-Quads.
    const nq = await get(windowUrl(T0 + DAY, T0 + 2 * DAY), 'application/n-quads');
    expect(nq.type).toMatch(/^application\/n-quads/);
    expect(isomorphic(nq.quads, day.quads)).toBe(true);
  });

  it('400 for parameters it cannot use, saying what to give', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/ldes?from=2025-01-01T00:00:00Z', /from= and to= must both be xsd:dateTime/],
      ['/ldes?from=yesterday&to=2025-01-02T00:00:00Z', /xsd:dateTime values with a time zone \(e\.g\. from=/],
      ['/ldes?from=2025-01-01T00:00:00&to=2025-01-02T00:00:00', /with a time zone/],
      ['/ldes?from=2025-01-02T00:00:00Z&to=2025-01-01T00:00:00Z', /must be later than from=/],
      ['/ldes?from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z&after=7', /after= must be <xsd:dateTime>~<key>/],
      ['/ldes?after=2025-01-01T00:00:00Z~1', /after= needs from= and to=/],
      ['/ldes?page=2', /unknown parameter 'page'/],
    ];
    for (const [url, message] of cases) {
      const res = await get(url);
      expect(res.status, url).toBe(400);
      expect(res.body, url).toMatch(message);
    }
  });

  it('VoID lists the stream and the dashboard links it', async () => {
    const voidDoc = await get('/.well-known/void', 'application/n-triples');
    const quads = new N3.Parser({ format: 'application/n-triples' }).parse(voidDoc.body);
    const service = quads.find((q) => q.predicate.value === 'http://www.w3.org/ns/dcat#endpointURL' && q.object.value === `${base}/ldes`);
    expect(service).toBeDefined();
    expect(objects(quads, service!.subject.value, 'http://purl.org/dc/terms/conformsTo').map((t) => t.value)).toEqual(['https://w3id.org/ldes/specification']);
    const dashboard = await (await fetch(`${base}/`)).text();
    expect(dashboard).toContain('href="/ldes"');
  });
});

/** Every fragment reachable from the root, as TriG, by URL path and query. */
function walk(reader: HistoryReads): Map<string, string> {
  const base = 'http://archive.test';
  const out = new Map<string, string>();
  const queue = [`${base}/ldes`];
  while (queue.length > 0) {
    const url = new URL(queue.shift()!);
    if (out.has(url.href)) continue;
    const asked = parseFragmentQuery(Object.fromEntries(url.searchParams));
    if (typeof asked === 'string') throw new Error(asked);
    const text = writeFragment(buildFragment(reader, base, asked, { pageSize: 2, now: Date.UTC(2026, 0, 1) }), 'trig');
    out.set(url.href, text);
    for (const m of text.matchAll(/tree:node <([^>]+)>/g)) queue.push(m[1]!);
  }
  return out;
}

const pgBase = await pgBaseUrl();

describe.skipIf(!pgBase)('the LDES of a versioned index in PostgreSQL', () => {
  const url = pgBase ? isolatedSchemaUrl(pgBase, 'dm_ldes') : '';
  afterAll(async () => {
    if (pgBase) await dropSchema(url);
  });

  it('has the same fragments, byte for byte, as the same versions in SQLite', async () => {
    const sqlite = openVersionStore(tempDir('dm-ldes-pg-'));
    const pg = new PgVersionArchive(url);
    try {
      await writeVersions(sqlite);
      await writeVersions(pg);
      sqlite.flush();
      pg.flush();
      const mine = walk(pg);
      expect(mine.size).toBe(8); // the root; the first day, its hour, minute, second, millisecond and its next page; the second day
      expect(mine).toEqual(walk(sqlite));
    } finally {
      await sqlite.close();
      await pg.close();
    }
  }, LOADED_TIMEOUT_MS);
});
