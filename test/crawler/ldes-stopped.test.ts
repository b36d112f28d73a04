import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import N3 from 'n3';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, LOADED_TIMEOUT_MS, runMain, tempDir } from '../helpers.ts';
import { buildingMember } from './ldes-fixture.ts';

/**
 * A crawl of a stream stopped before the stream's end (here by --max-docs; a cycle's time limit stops it the
 * same way) archives the members no unread page can precede (LdesStreams.safeBefore), and its resume the rest,
 * each document's versions in time order. The stream: three pages by time, each relation bounding the next
 * page's members from below on dct:modified (the stream's timestampPath); the first page also holds a member of
 * mid-February, after the second page's bound, while the second page holds an earlier version of the same
 * building: archiving that member before the second page is read would lose the earlier version.
 */
const PREFIXES = `@prefix tree: <https://w3id.org/tree#> . @prefix ldes: <https://w3id.org/ldes#> . @prefix dct: <http://purl.org/dc/terms/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix schema: <http://schema.org/> .
@prefix ex: <http://data.example.org/ns#> .
`;

/** A stream whose pages link on by relations of `kind` (on `path`, dct:modified unless said). */
async function startStream(kind: string, path = 'dct:modified'): Promise<TestServer> {
  let base = '';
  const relation = (from: number, value: string) =>
    `<${base}/ldes/buildings/${from}> tree:relation [ a tree:${kind} ; tree:path ${path} ; tree:value "${value}"^^xsd:dateTime ; tree:node <${base}/ldes/buildings/${from + 1}> ] .\n`;
  const pages = (): Record<string, string> => ({
    '/ldes/buildings/0': `<${base}/ldes/buildings> a ldes:EventStream ; ldes:versionOfPath ex:versionOf ; ldes:timestampPath dct:modified ; tree:view <${base}/ldes/buildings/0> .
${relation(0, '2024-01-01T00:00:00Z')}`,
    '/ldes/buildings/1': relation(1, '2024-02-01T00:00:00Z') +
      buildingMember(base, 1, '2024-01-03T10:00:00Z', 'Town hall', 'Botermarkt 1') +
      buildingMember(base, 2, '2024-01-05T08:30:00Z', 'Belfry', 'Sint-Baafsplein') +
      buildingMember(base, 3, '2024-02-15T09:00:00Z', 'Castle of the Counts, restored', 'Sint-Veerleplein 11'),
    '/ldes/buildings/2': relation(2, '2024-03-01T00:00:00Z') +
      buildingMember(base, 1, '2024-02-03T12:00:00Z', 'City hall', 'Botermarkt 1') +
      buildingMember(base, 3, '2024-02-10T16:45:00Z', 'Castle of the Counts', 'Sint-Veerleplein 11'),
    '/ldes/buildings/3': buildingMember(base, 1, '2024-03-05T12:00:00Z', 'City hall of Ghent', 'Botermarkt 1') +
      buildingMember(base, 2, '2024-03-06T08:00:00Z', 'Belfry of Ghent', 'Sint-Baafsplein'),
  });
  const server = await startServer((_req, res, url) => {
    const page = pages()[url.pathname];
    if (page === undefined) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/turtle; charset=utf-8', 'cache-control': url.pathname === '/ldes/buildings/3' ? 'max-age=60' : 'public, max-age=604800, immutable' }).end(PREFIXES + page);
  });
  base = server.url;
  return server;
}

async function crawlOk(data: string, view: string, ...more: string[]) {
  const r = await runMain(['crawl', '--data', data, '--ldes', view, '--delay', '0', '--allow-private', '--json', ...more]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out);
}

/** The English label building `n` has at `at`, by `query --at` (undefined: no version then). */
async function labelAt(data: string, base: string, n: number, at: string): Promise<string | undefined> {
  const r = await runMain(['query', '--data', data, '--at', at, '--format', 'nquads', `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${base}/id/building/${n}> { ?s ?p ?o } }`]);
  expect(r.code, r.err).toBe(0);
  return new N3.Parser({ format: 'N-Quads' }).parse(r.out).find((q) => q.predicate.value.endsWith('#label') && (q.object as { language?: string }).language === 'en')?.object.value;
}

const memberRows = (data: string) => crawlLog(data).filter((e) => String(e.diagnostics ?? '').includes('LDES member'));

/** Every version at its time, after the resume: what a reader of the whole stream at once archives. */
async function expectAllVersions(data: string, base: string): Promise<void> {
  expect(await labelAt(data, base, 1, '2024-01-20T00:00:00Z')).toBe('Town hall');
  expect(await labelAt(data, base, 1, '2024-02-20T00:00:00Z')).toBe('City hall');
  expect(await labelAt(data, base, 1, '2024-03-10T00:00:00Z')).toBe('City hall of Ghent');
  expect(await labelAt(data, base, 3, '2024-02-12T00:00:00Z')).toBe('Castle of the Counts');
  expect(await labelAt(data, base, 3, '2024-02-20T00:00:00Z')).toBe('Castle of the Counts, restored');
  expect(await labelAt(data, base, 2, '2024-03-10T00:00:00Z')).toBe('Belfry of Ghent');
  const members = memberRows(data).map((e) => /LDES member (\S+),/.exec(String(e.diagnostics))![1]);
  expect(new Set(members).size).toBe(7);
  expect(members).toHaveLength(7);
}

describe('crawl --ldes stopped before the stream\'s end', () => {
  let stream: TestServer | undefined;
  afterEach(async () => {
    await stream?.close();
    stream = undefined;
  });

  it('archives the members before the lowest bound of the pages left unread, and the resume the rest, in time order', async () => {
    stream = await startStream('GreaterThanOrEqualToRelation');
    const data = tempDir('dm-ldes-stopped-');
    const view = `${stream.url}/ldes/buildings/0`;
    const first = await crawlOk(data, view, '--max-docs', '2');
    expect(first.stoppedBy).toBe('max-docs');
    // Page 2 is unread and bound from 2024-02-01: January's two members are archived, February's 15th waits
    // (page 2 holds the castle's version of the 10th).
    expect(first.ldes.archived).toEqual({ new: 2, changed: 0, unchanged: 0, deleted: 0 });
    expect(first.ldes.pending).toBe(1);
    expect(await labelAt(data, stream.url, 1, '2024-01-20T00:00:00Z')).toBe('Town hall');
    expect(await labelAt(data, stream.url, 3, '2024-02-20T00:00:00Z')).toBeUndefined();

    // The members waited in the data directory's scratch space, removed when the crawl ended.
    expect(fs.readdirSync(data).filter((f) => f.startsWith('.ldes-'))).toEqual([]);

    const resumed = await crawlOk(data, view);
    expect(resumed.ldes.pending).toBeUndefined();
    // January's two again, read back from the archive: archived before, not again.
    expect(resumed.ldes.skipped.notNewer).toBe(2);
    await expectAllVersions(data, stream.url);
  }, LOADED_TIMEOUT_MS);

  for (const [kind, path, why] of [['Relation', 'dct:modified', 'a plain tree:Relation'], ['GreaterThanOrEqualToRelation', 'ex:created', 'a bound on another path than the timestampPath']] as const) {
    it(`archives nothing when a page left unread has no lower bound on the time (${why}); the resume archives all`, async () => {
      stream = await startStream(kind, path);
      const data = tempDir('dm-ldes-stopped-');
      const view = `${stream.url}/ldes/buildings/0`;
      const first = await crawlOk(data, view, '--max-docs', '2');
      expect(first.stoppedBy).toBe('max-docs');
      expect(first.ldes.archived).toEqual({ new: 0, changed: 0, unchanged: 0, deleted: 0 });
      expect(first.ldes.pending).toBe(3);
      expect(memberRows(data)).toHaveLength(0);
      const resumed = await crawlOk(data, view);
      expect(resumed.ldes.pending).toBeUndefined();
      await expectAllVersions(data, stream.url);
    }, LOADED_TIMEOUT_MS);
  }

  it('a stream whose description comes after its first members: those are ordered by the paths it declares', async () => {
    let base = '';
    // Page 1 has a member and no description; page 2 declares the paths (dct:modified is no fallback path).
    const pages = (): Record<string, string> => ({
      '/ldes/buildings/1': `<${base}/ldes/buildings/1> tree:relation [ a tree:Relation ; tree:node <${base}/ldes/buildings/2> ] .\n` +
        buildingMember(base, 1, '2024-01-03T10:00:00Z', 'Town hall', 'Botermarkt 1'),
      '/ldes/buildings/2': `<${base}/ldes/buildings> a ldes:EventStream ; ldes:versionOfPath ex:versionOf ; ldes:timestampPath dct:modified .\n` +
        buildingMember(base, 1, '2024-02-03T12:00:00Z', 'City hall', 'Botermarkt 1'),
    });
    stream = await startServer((_req, res, url) => {
      const page = pages()[url.pathname];
      if (page === undefined) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      res.writeHead(200, { 'content-type': 'text/turtle; charset=utf-8' }).end(PREFIXES + page);
    });
    base = stream.url;
    const data = tempDir('dm-ldes-late-description-');
    const r = await crawlOk(data, `${base}/ldes/buildings/1`);
    expect(r.ldes.archived).toEqual({ new: 1, changed: 1, unchanged: 0, deleted: 0 });
    expect(await labelAt(data, base, 1, '2024-01-20T00:00:00Z')).toBe('Town hall');
    expect(await labelAt(data, base, 1, '2024-02-20T00:00:00Z')).toBe('City hall');
  }, LOADED_TIMEOUT_MS);
});
