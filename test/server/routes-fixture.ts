/**
 * A small archive for the archive routes and the dashboard: a site on 127.0.0.1 crawled three times, where
 * `people.ttl` changes (a name, blank nodes, a new person) and then stays the same, a redirect leaves its
 * capture under the target URL, and a folder gives prefix searches something to find. Optionally a
 * worker store with one live and one lapsed host lease (what the worker panel shows).
 */
import path from 'node:path';
import { crawl } from '../../src/crawler/crawl.ts';
import { SqliteWorkerStore } from '../../src/store/sqlite-worker.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { indexVersions } from '../query/helpers.ts';
import { crawlLog, tempDir } from '../helpers.ts';

const PREFIXES = '@prefix ex: <http://example.org/> .\n@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n';
export const PEOPLE = [
  `${PREFIXES}ex:alice a foaf:Person ; foaf:name "Alice" ; foaf:knows [ foaf:name "Bob" ] .\n`,
  `${PREFIXES}ex:alice a foaf:Person ; foaf:name "Alice B." ; foaf:knows [ foaf:name "Bob" ], [ foaf:name "Dora" ] .\nex:carol a foaf:Person .\n`,
];

export interface RoutesFixture {
  dataDir: string;
  origin: TestServer;
  people: string;
  /** Capture times of people.ttl, oldest first: V1, V2, V2 again. */
  times: number[];
  urls: { other: string; a: string; b: string; moved: string; target: string };
  close(): Promise<void>;
}

export async function routesArchive(): Promise<RoutesFixture> {
  const dataDir = tempDir('dm-routes-');
  let version = 0;
  const origin = await startServer((_req, res, url) => {
    const ttl = (body: string) => res.writeHead(200, { 'content-type': 'text/turtle' }).end(body);
    switch (url.pathname) {
      case '/people.ttl': return ttl(PEOPLE[version]!);
      case '/other.ttl': return ttl('<http://example.org/other> a <http://example.org/Thing> .\n');
      case '/folder/a.ttl': return ttl('<http://example.org/a> a <http://example.org/Thing> .\n');
      case '/folder/b.ttl': return ttl('<http://example.org/b> a <http://example.org/Thing> .\n');
      case '/moved.ttl': return res.writeHead(301, { location: '/Target.ttl' }).end();
      case '/Target.ttl': return ttl('<http://example.org/target> a <http://example.org/Thing> .\n');
      default: return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  const run = (paths: string[]) =>
    crawl({ seeds: paths.map((p) => origin.url + p), dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, refetch: true, noFollow: true, domains: ['127.0.0.1'] }).run();
  await run(['/people.ttl', '/other.ttl', '/folder/a.ttl', '/folder/b.ttl', '/moved.ttl']);
  version = 1;
  await run(['/people.ttl']);
  await run(['/people.ttl']);
  await (await indexVersions(dataDir)).close();
  const people = `${origin.url}/people.ttl`;
  return {
    dataDir, origin, people,
    times: crawlLog(dataDir).filter((e) => e.url === people).map((e) => Number(e.time)),
    urls: { other: `${origin.url}/other.ttl`, a: `${origin.url}/folder/a.ttl`, b: `${origin.url}/folder/b.ttl`, moved: `${origin.url}/moved.ttl`, target: `${origin.url}/Target.ttl` },
    close: () => origin.close(),
  };
}

/**
 * Workers sharing the archive's store: `live` holds a lease for a minute, `gone` held one that lapsed (it
 * stopped renewing). Returns the open worker store (close it after).
 */
export async function leaseHosts(dataDir: string, names = { live: 'worker-live', gone: 'worker-gone' }): Promise<SqliteWorkerStore> {
  const store = new SqliteWorkerStore(path.join(dataDir, 'meta.sqlite'));
  await store.init();
  await store.addDocuments([
    { url: 'http://a.example/x', host: 'a.example', depth: 0 },
    { url: 'http://b.example/y', host: 'b.example', depth: 0 },
  ]);
  await store.flush();
  const all = { index: 0, count: 1 };
  const live = await store.leaseHosts(names.live, all, 60_000, 1);
  const gone = await store.leaseHosts(names.gone, all, 1, 1);
  if (live.length !== 1 || gone.length !== 1) throw new Error(`fixture: leases not taken (${JSON.stringify({ live, gone })})`);
  // The 1 ms lease must have run out before anyone looks.
  await new Promise((r) => setTimeout(r, 5));
  return store;
}
