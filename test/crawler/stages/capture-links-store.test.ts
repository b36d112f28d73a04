import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CaptureStage } from '../../../src/crawler/stages/capture.ts';
import { LinksStage } from '../../../src/crawler/stages/links.ts';
import { StoreStage } from '../../../src/crawler/stages/store.ts';
import { newJob, type Stage } from '../../../src/crawler/stages/types.ts';
import { CrawlSitemaps } from '../../../src/crawler/sitemaps.ts';
import { WarcWriter } from '../../../src/archive/warc-writer.ts';
import type { CapturedDocument } from '../../../src/crawler/capture.ts';
import type { HostRow } from '../../../src/store/types.ts';
import { startServer, type TestServer } from '../../../src/testkit/server.ts';
import { hostOf } from '../../../src/frontier/normalize.ts';
import { pageFetcher, stageKit } from './kit.ts';

describe('the capture, links and store stages', () => {
  let site: TestServer;
  let kit: Awaited<ReturnType<typeof stageKit>>;
  beforeAll(async () => {
    site = await startServer((_req, res, url) => {
      const base = `http://127.0.0.1:${site.port}`;
      if (url.pathname === '/broken') return res.writeHead(200, { 'content-type': 'text/turtle' }).end('<a> <b> not turtle\n');
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><a href="${base}/next">next</a> <a rel="nofollow" href="${base}/login">login</a></body></html>`);
    });
  });
  afterAll(() => site.close());
  afterEach(() => kit.close());

  async function through(path: string) {
    const fetcher = pageFetcher();
    const warc = new WarcWriter(kit.dir);
    const counts = { documents: 0, triples: 0, bytes: 0, errors: 0, new: 0, changed: 0, unchanged: 0 };
    const hosts = new Map<string, HostRow>();
    const hostRow = (host: string) => hosts.get(host) ?? (hosts.set(host, { host, fetches: 0, errors: 0 }), hosts.get(host)!);
    const capture = new CaptureStage({ ctx: { store: kit.fates.store, warc, mime: [], maxQuads: 1e6 }, hostRow, counts });
    const emitted: CapturedDocument[] = [];
    const links = new LinksStage({ scope: kit.scope, frontier: kit.frontier, sitemaps: new CrawlSitemaps(false), noFollow: false, vocabularies: true, counts: { sitemaps: { read: 0, urls: 0 } } });
    const store = new StoreStage(kit.store, kit.scope, (d) => emitted.push(d));
    const job = newJob({ url: `${site.url}${path}`, host: hostOf(site.url), origin: site.url, depth: 0, key: 0 });
    job.outcome = await fetcher.fetch(job.entry.url);
    for (const stage of [capture, links, store] as Stage[]) if (!stage.shouldProcess || stage.shouldProcess(job)) await stage.process(job);
    await warc.close();
    await fetcher.close();
    return { job, counts, hosts, emitted };
  }

  it('captures and counts a document, follows its links but not a nofollow one, and hands it to the consumer', async () => {
    kit = await stageKit();
    const { job, counts, hosts, emitted } = await through('/');
    expect(job.doc?.status).toBe(200);
    expect(counts).toMatchObject({ documents: 1, new: 1, errors: 0 });
    expect(hosts.get(hostOf(site.url))?.fetches).toBe(1);
    const queued: string[] = [];
    for (let e = kit.frontier.pop(Date.now()); e; e = kit.frontier.pop(Date.now() + 1e9)) queued.push(e.url), kit.frontier.release(e.origin, 0, { ok: true });
    expect(queued).toContain(`${site.url}/next`);
    expect(emitted.map((d) => d.url)).toEqual([`${site.url}/`]);
    expect((await kit.store.getDocument(`${site.url}/next`))?.state).toBe('queued');
    expect(await kit.log()).toMatchObject([{ reason: 'fetched' }]);
  });

  it('counts a document its parser gave up on as an error with reason parse-error', async () => {
    kit = await stageKit();
    const { counts } = await through('/broken');
    expect(counts).toMatchObject({ documents: 1, new: 0, errors: 1 });
    expect(await kit.log()).toMatchObject([{ reason: 'parse-error' }]);
  });
});
