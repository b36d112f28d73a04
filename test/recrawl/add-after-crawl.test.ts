import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, staticRoutes, type TestServer } from '../../src/testkit/server.ts';
import { openStore } from '../../src/store/index.ts';
import { runMain as cli, tempDir } from '../helpers.ts'; // in this process: each command line as a process cost a CPU-second of start-up
import { dropSchema, isolatedSchemaUrl, pgBaseUrl } from '../store/pg.ts';

/**
 * `add URL` for URLs an earlier `crawl` fetched (a seed, a page it reached by a link, a redirect, a 404):
 * they become monitored, and the next `run` fetches each of them again, in the store the user named
 * (`--db postgres://…` as well as the embedded one).
 */
const pgBase = await pgBaseUrl();

describe('add after crawl: the next cycle fetches the URLs again', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((req, res, url) =>
      staticRoutes({
        '/a': { type: 'text/turtle', body: `<${server.url}/a> <http://x.example/p> <${server.url}/r>, <${server.url}/gone> .` },
        '/r': { type: 'text/plain', status: 301, body: '', headers: { location: '/b' } },
        '/b': { type: 'text/turtle', body: `<${server.url}/b> <http://x.example/p> "b" .` },
      })(req, res, url),
    );
  });
  afterAll(() => server.close());

  const cases: [string, () => string | undefined][] = [['the embedded store', () => undefined]];
  if (pgBase) cases.push(['PostgreSQL (--db)', () => isolatedSchemaUrl(pgBase, 'dm_add_crawl')]);

  for (const [name, dbOf] of cases) {
    it(`on ${name}`, async () => {
      const dataDir = tempDir();
      const db = dbOf();
      const store = db ? ['--data', dataDir, '--db', db] : ['--data', dataDir];
      const fetch = ['--allow-private', '--delay', '0'];
      try {
        const crawled = await cli(['crawl', `${server.url}/a`, ...store, ...fetch, '--no-vocabularies']);
        expect(crawled.code, crawled.err).toBe(0);
        const urls = ['/a', '/b', '/r', '/gone'].map((p) => `${server.url}${p}`);
        const added = await cli(['add', ...urls, ...store, '--json']);
        expect(added.code, added.err).toBe(0);
        expect(JSON.parse(added.out)).toMatchObject({ urls: 4, added: 0 });

        const before = server.requests.length;
        const run = await cli(['run', ...store, ...fetch, '--json']);
        expect(run.code, run.err).toBe(0);
        expect(JSON.parse(run.out)).toMatchObject({ status: 'done', due: 4, planned: 4 });
        const asked = new Set(server.requests.slice(before).map((q) => q.path));
        for (const p of ['/a', '/b', '/r', '/gone']) expect(asked, p).toContain(p);
        // Once each: /b is due itself and the target of /r's redirect in the same cycle.
        const times = (p: string) => server.requests.slice(before).filter((q) => q.path === p).length;
        expect(['/a', '/b', '/r', '/gone'].map(times)).toEqual([1, 1, 1, 1]);

        // What `stats` says of the same store: four monitored, none due (each scheduled again, the redirect too:
        // it used to stay due, and every cycle fetched it again).
        const s = await openStore(dataDir, db);
        await s.init();
        try {
          expect(await s.archiveCounts(Date.now())).toMatchObject({ monitored: 4, due: 0 });
          for (const d of await s.getDocuments(urls)) expect(d.lastFetched, d.url).toBeGreaterThan(Date.now() - 600_000);
        } finally {
          await s.close();
        }
      } finally {
        if (db) await dropSchema(db);
      }
    }, 120_000);
  }
});
