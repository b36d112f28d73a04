import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { isomorphic } from 'rdf-isomorphic';
import { runCycle } from '../../src/recrawl/cycle.ts';
import { startServer } from '../../src/testkit/server.ts';
import { crawlLog, documents, LOADED_TIMEOUT_MS, runMain, runMainOk, tempDir } from '../helpers.ts';
import { buildingMember, startLdesFixture, type LdesFixture } from './ldes-fixture.ts';

/**
 * `crawl --ldes` of a stream shaped like a third-party one (ldes-fixture.ts): its own paths, members in the
 * default graph, Turtle and JSON-LD pages, a page that answers 500 once, one that hangs once, a relation to a
 * page that is not there. Then the same crawl stopped after two pages and resumed, and a crawl after the
 * publisher added members.
 */
const { namedNode, quad, defaultGraph } = N3.DataFactory;

const crawlArgs = (data: string, view: string, ...more: string[]) => ['crawl', '--data', data, '--ldes', view, '--delay', '0', '--timeout', '1s', '--allow-private', '--json', ...more];

async function crawlOk(args: string[]) {
  const r = await runMain(args);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out);
}

/** The graph of `document` at `at` in the archive, by `query --at`. */
async function graphAt(data: string, document: string, at: string): Promise<Quad[]> {
  const r = await runMain(['query', '--data', data, '--at', at, '--format', 'nquads', `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${document}> { ?s ?p ?o } }`]);
  expect(r.code, r.err).toBe(0);
  return new N3.Parser({ format: 'N-Quads' }).parse(r.out);
}

/** A member's data as the document's graph: the member's IRI replaced by the entity's, its version-of and time left out. */
function expected(base: string, n: number, time: string, name: string, street: string, extra = ''): Quad[] {
  const entity = `${base}/id/building/${n}`;
  const member = `${entity}/${time}`;
  const quads = new N3.Parser().parse(`@prefix tree: <https://w3id.org/tree#> . @prefix dct: <http://purl.org/dc/terms/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix schema: <http://schema.org/> . @prefix ex: <http://data.example.org/ns#> .
${buildingMember(base, n, time, name, street, extra)}`);
  return quads
    .filter((q) => !(q.subject.value === member && ['http://data.example.org/ns#versionOf', 'http://purl.org/dc/terms/modified'].includes(q.predicate.value)))
    .filter((q) => q.predicate.value !== 'https://w3id.org/tree#member')
    .map((q) => (q.subject.value === member ? quad(namedNode(entity), q.predicate, q.object, defaultGraph()) : q));
}

describe('crawl --ldes of a third-party stream', () => {
  let stream: LdesFixture;
  beforeEach(async () => {
    stream = await startLdesFixture();
  });
  afterEach(async () => {
    await stream?.close();
  });

  it('reads the stream from its IRI past a 500, a hang, a missing and a disallowed page, and archives every member as its document\'s version', async () => {
    const data = tempDir('dm-ldes-3p-');
    // Given the stream's IRI, as a user copies it from a catalogue: its tree:view leads to the pages.
    const s = await crawlOk(crawlArgs(data, stream.stream));
    // 1: new, changed; 2: new, the same graph again; 3: new (JSON-LD page), changed; 4: new, deleted.
    expect(s.ldes.archived).toEqual({ new: 4, changed: 2, unchanged: 1, deleted: 1 });
    expect(s.ldes.skipped).toEqual({ notNewer: 0, beforeSince: 0, invalid: 0 });
    expect(s.ldes.failedPages).toEqual([`${stream.url}/ldes/buildings/by-time/2024-02-old: HTTP 404`, `${stream.url}/admin/ldes/drafts: not fetched (skipped: datamonitor log --url says why)`]);
    expect(stream.hits('/admin/ldes/drafts')).toBe(0);
    // The 500 and the hang were tried again, and are in the crawl log as tries.
    expect(stream.hits('/ldes/buildings/by-time/2024-02')).toBe(2);
    expect(stream.hits('/ldes/buildings/by-time/2024-03')).toBe(2);
    const tries = crawlLog(data).filter((e) => String(e.url).endsWith('/2024-02') || String(e.url).endsWith('/2024-03')).map((e) => e.reason);
    expect(tries).toEqual(expect.arrayContaining(['server-error', 'fetched']));
    expect(tries.some((r) => String(r).startsWith('timeout'))).toBe(true);

    // Versions at the members' own times, their graphs the members' data about the entity.
    const base = stream.url;
    expect(isomorphic(await graphAt(data, stream.entity(1), '2024-01-10T00:00:00Z'), expected(base, 1, '2024-01-03T10:00:00Z', 'Town hall', 'Botermarkt 1'))).toBe(true);
    expect(isomorphic(await graphAt(data, stream.entity(1), '2024-06-01T00:00:00Z'), expected(base, 1, '2024-01-20T12:00:00Z', 'City hall', 'Botermarkt 1'))).toBe(true);
    expect(isomorphic(await graphAt(data, stream.entity(3), '2024-03-11T00:00:00Z'), expected(base, 3, '2024-03-10T16:45:00Z', 'Castle of the Counts', 'Sint-Veerleplein 11', '; schema:openingHours "Mo-Su 10:00-18:00" '))).toBe(true);
    expect(await graphAt(data, stream.entity(3), '2024-01-31T00:00:00Z')).toHaveLength(0);
    expect((await graphAt(data, stream.entity(3), '2024-02-20T00:00:00Z')).length).toBeGreaterThan(5);
    expect((await graphAt(data, stream.entity(4), '2024-03-01T00:00:00Z')).length).toBeGreaterThan(5);
    expect(await graphAt(data, stream.entity(4), '2024-03-21T00:00:00Z')).toHaveLength(0);
    // No entity IRI, DBpedia or Wikidata link was fetched: only the stream's pages and robots.txt.
    expect(stream.requests.filter((r) => r.path !== '/robots.txt' && !r.path.startsWith('/ldes/'))).toEqual([]);
  }, LOADED_TIMEOUT_MS);

  it('stopped after two pages and resumed: each member archived once, the immutable page not fetched again', async () => {
    const data = tempDir('dm-ldes-resume-');
    const first = await crawlOk(crawlArgs(data, stream.view, '--max-docs', '2'));
    expect(first.stoppedBy).toBe('max-docs');
    // The view and January were read; the pages left are bound after January 31st (tree:GreaterThanRelation on
    // dct:modified): no member before that can still come, so January's four are archived now.
    expect(first.ldes.archived).toEqual({ new: 3, changed: 1, unchanged: 0, deleted: 0 });
    expect(first.ldes.pending).toBeUndefined();
    expect(crawlLog(data).filter((e) => String(e.diagnostics ?? '').includes('LDES member'))).toHaveLength(4);
    const resumed = await crawlOk(crawlArgs(data, stream.view));
    expect(resumed.resumed).toBe(true);
    expect(resumed.ldes.pages.fromArchive).toBe(1);
    expect(stream.hits('/ldes/buildings/by-time/2024-01')).toBe(1);
    expect(stream.hits('/ldes/buildings/by-time')).toBe(2); // the view may change: read again
    // The pages the stopped run had queued are fetched once by the resume (2024-02: its 500, then its answer).
    expect(stream.hits('/ldes/buildings/by-time/2024-02')).toBe(2);
    expect(stream.hits('/ldes/buildings/by-time/2024-03')).toBe(2);
    const rows = crawlLog(data).filter((e) => String(e.diagnostics ?? '').includes('LDES member'));
    const members = rows.map((e) => /LDES member (\S+),/.exec(String(e.diagnostics))![1]);
    expect(members).toHaveLength(8);
    expect(new Set(members).size).toBe(8);
  }, LOADED_TIMEOUT_MS);

  it('a second crawl archives only the members published since, reading no immutable page again', async () => {
    const data = tempDir('dm-ldes-again-');
    await crawlOk(crawlArgs(data, stream.view));
    const before = crawlLog(data).length;
    const hitsBefore = ['2024-01', '2024-02', '2024-03'].map((p) => stream.hits(`/ldes/buildings/by-time/${p}`));
    stream.publish(buildingMember(stream.url, 2, '2024-04-02T08:00:00Z', 'Belfry and Cloth Hall', 'Sint-Baafsplein') + buildingMember(stream.url, 5, '2024-04-03T08:00:00Z', 'Saint Bavo\'s Cathedral', 'Sint-Baafsplein'));
    const again = await crawlOk(crawlArgs(data, stream.view));
    expect(again.ldes.archived).toEqual({ new: 1, changed: 1, unchanged: 0, deleted: 0 });
    expect(again.ldes.skipped.notNewer).toBe(8);
    expect(['2024-01', '2024-02', '2024-03'].map((p) => stream.hits(`/ldes/buildings/by-time/${p}`))).toEqual(hitsBefore);
    // The page that was missing is asked for again: it may be there now.
    expect(stream.hits('/ldes/buildings/by-time/2024-02-old')).toBe(2);
    const added = crawlLog(data).slice(before).filter((e) => String(e.diagnostics ?? '').includes('LDES member'));
    expect(added.map((e) => e.url).sort()).toEqual([stream.entity(2), stream.entity(5)]);
  }, LOADED_TIMEOUT_MS);

  it('--ldes-since archives only the members from that time on', async () => {
    const data = tempDir('dm-ldes-since-');
    const s = await crawlOk(crawlArgs(data, stream.view, '--ldes-since', '2024-03-01T00:00:00Z'));
    // Before March: 1 twice, 2, 3 and 4 once. From March: 2 and 3 (new here), and 4's deletion of a graph this archive never had.
    expect(s.ldes.skipped.beforeSince).toBe(5);
    expect(s.ldes.archived).toEqual({ new: 2, changed: 0, unchanged: 1, deleted: 0 });
  }, LOADED_TIMEOUT_MS);

  it('a monitored stream is read every cycle, and the documents it covers are not downloaded by guessing', async () => {
    const data = tempDir('dm-ldes-cycle-');
    const DAY = 86_400_000;
    await runMainOk(['add', '--data', data, stream.entity(1)]);
    await runMainOk(['add', '--data', data, '--ldes', stream.view]);
    const t0 = Date.now();
    const options = { dataDir: data, crawl: { delayMs: 0, allowPrivate: true, timeoutMs: 1000 } };
    const first = await runCycle({ ...options, now: () => t0 });
    expect(first.status, first.note).toBe('done');
    expect(first.streamDocuments).toBe(4);
    expect(stream.hits('/id/building/1')).toBe(1);
    const covered = documents(data).filter((d) => d.strategy === 'ldes-member').map((d) => d.url).sort();
    expect(covered).toEqual([1, 2, 3, 4].map((n) => stream.entity(n)));

    // 200 days on, past the longest interval any strategy keeps: the stream is read again, building 1 is not fetched.
    stream.publish(buildingMember(stream.url, 5, '2024-04-03T08:00:00Z', 'Saint Bavo\'s Cathedral', 'Sint-Baafsplein'));
    const later = await runCycle({ ...options, now: () => t0 + 200 * DAY });
    expect(later.status, later.note).toBe('done');
    expect(stream.hits('/ldes/buildings/by-time')).toBe(2);
    expect(stream.hits('/id/building/1')).toBe(1);
    expect(later.streamDocuments).toBe(1);
    expect(crawlLog(data).filter((e) => e.url === stream.entity(5) && String(e.diagnostics).includes('LDES member'))).toHaveLength(1);
  }, LOADED_TIMEOUT_MS);

  it('a stream that declares no paths is read with the common ones, and says so; a member without a time is reported', async () => {
    const page = await startServer((_req, res, u) => {
      if (u.pathname !== '/feed') return res.writeHead(404).end();
      const b = `http://127.0.0.1:${u.port}`;
      res.writeHead(200, { 'content-type': 'text/turtle' }).end(`@prefix tree: <https://w3id.org/tree#> . @prefix dct: <http://purl.org/dc/terms/> .
@prefix prov: <http://www.w3.org/ns/prov#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix foaf: <http://xmlns.com/foaf/0.1/> .
<${b}/feed#stream> tree:member <${b}/v/1>, <${b}/v/2>, <${b}/v/3> .
<${b}/v/1> dct:isVersionOf <${b}/people/ada> ; prov:generatedAtTime "2024-05-01T10:00:00Z"^^xsd:dateTime ; foaf:name "Ada" ; foaf:knows [ foaf:name "Charles" ] .
<${b}/v/2> dct:isVersionOf <${b}/people/ada> ; prov:generatedAtTime "2024-05-02T10:00:00Z"^^xsd:dateTime ; foaf:name "Ada Lovelace" ; foaf:knows [ foaf:name "Charles" ] .
<${b}/v/3> dct:isVersionOf <${b}/people/alan> ; foaf:name "Alan" .
`);
    });
    try {
      const data = tempDir('dm-ldes-plain-');
      const s = await crawlOk(crawlArgs(data, `${page.url}/feed`));
      expect(s.ldes.archived).toEqual({ new: 1, changed: 1, unchanged: 0, deleted: 0 });
      expect(s.ldes.skipped.invalid).toBe(1);
      expect(s.ldes.diagnostics).toEqual(expect.arrayContaining([
        expect.stringMatching(/declares no ldes:versionOfPath: members read as versions by <http:\/\/purl\.org\/dc\/terms\/isVersionOf>/),
        expect.stringMatching(/declares no ldes:timestampPath: members dated by <http:\/\/www\.w3\.org\/ns\/prov#generatedAtTime>/),
        expect.stringMatching(/v\/3 has no <http:\/\/www\.w3\.org\/ns\/prov#generatedAtTime> time/),
      ]));
      const ada = await graphAt(data, `${page.url}/people/ada`, '2024-06-01T00:00:00Z');
      expect(ada.map((q) => q.object.value)).toEqual(expect.arrayContaining(['Ada Lovelace', 'Charles']));
      expect(ada).toHaveLength(3);
    } finally {
      await page.close();
    }
  }, LOADED_TIMEOUT_MS);
});
