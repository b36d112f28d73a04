import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RobotsStage } from '../../../src/crawler/stages/robots.ts';
import { newJob } from '../../../src/crawler/stages/types.ts';
import { RobotsCache, createHttpFetcher } from '../../../src/fetch/index.ts';
import { startServer, type TestServer } from '../../../src/testkit/server.ts';
import { hostOf } from '../../../src/frontier/normalize.ts';
import { stageKit } from './kit.ts';
import { HostQueues } from '../../../src/frontier/host-queues.ts';

describe('the robots stage', () => {
  let site: TestServer;
  let kit: Awaited<ReturnType<typeof stageKit>>;
  beforeAll(async () => {
    site = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\nCrawl-delay: 2\n');
      res.writeHead(200).end();
    });
  });
  afterAll(() => site.close());
  afterEach(() => kit.close());

  it('lets an allowed URL on, passing the Crawl-delay, and records a disallowed one as skipped', async () => {
    kit = await stageKit();
    const fetcher = createHttpFetcher({ userAgent: 'datamonitor-test', connectTimeoutMs: 5_000, headersTimeoutMs: 5_000, totalTimeoutMs: 10_000, maxBodyBytes: 1 << 20, maxInflatedBytes: 4 << 20, maxRedirects: 5, allowPrivate: true, connectionsPerOrigin: 1 });
    const delays: number[] = [];
    const counts = { skipped: { robots: 0 }, errors: 0 };
    const frontier = new HostQueues({ delayMs: 0, perHost: 1 });
    const stage = new RobotsStage({ robots: new RobotsCache(fetcher, { userAgent: 'datamonitor-test' }), fates: kit.fates, frontier, onCrawlDelay: (_e, ms) => delays.push(ms), counts });
    const entry = (p: string) => ({ url: `${site.url}${p}`, host: hostOf(site.url), origin: site.url, depth: 0, key: 0 });
    // robots.txt was fetched for this URL: a request to the origin, so the page goes back to wait its turn.
    const first = newJob(entry('/open'));
    expect(await stage.process(first)).toBe('done');
    expect(first.startedAt).toBeDefined();
    expect(frontier.size).toBe(1);
    expect(await stage.process(newJob(entry('/open')))).toBe('continue');
    expect(delays).toEqual([2000, 2000]);
    expect(await stage.process(newJob(entry('/private/x')))).toBe('done');
    expect(counts.skipped.robots).toBe(1);
    expect(await kit.log()).toMatchObject([{ url: `${site.url}/private/x`, reason: 'robots-disallowed' }]);
    await fetcher.close();
  });
});
