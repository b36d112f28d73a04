import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FetchStage } from '../../../src/crawler/stages/fetch.ts';
import { newJob } from '../../../src/crawler/stages/types.ts';
import { startServer, type TestServer } from '../../../src/testkit/server.ts';
import { hostOf } from '../../../src/frontier/normalize.ts';
import { pageFetcher, stageKit } from './kit.ts';
import { HostQueues } from '../../../src/frontier/host-queues.ts';

describe('the fetch stage', () => {
  let site: TestServer;
  let kit: Awaited<ReturnType<typeof stageKit>>;
  beforeAll(async () => {
    site = await startServer((_req, res, url) => {
      if (url.pathname === '/busy') return res.writeHead(503, { 'retry-after': '2' }).end();
      res.writeHead(200, { 'content-type': 'text/turtle' }).end('<a> <b> <c> .\n');
    });
  });
  afterAll(() => site.close());
  afterEach(() => kit.close());

  const entry = (p: string) => ({ url: `${site.url}${p}`, host: hostOf(`${site.url}${p}`), origin: site.url, depth: 0, key: 0 });

  it('fetches, and hands the response on', async () => {
    kit = await stageKit();
    const fetcher = pageFetcher();
    const stage = new FetchStage({ fetcher, prerequisites: fetcher, store: kit.store, refetch: false, retryLater: () => true, maxTries: 4, maxRetryBackoffMs: 120_000, fates: kit.fates, frontier: new HostQueues({ delayMs: 0, perHost: 1 }), counts: { errors: 0 } });
    const job = newJob(entry('/doc'));
    expect(await stage.process(job)).toBe('continue');
    expect(job.outcome?.response?.status).toBe(200);
    expect(job.startedAt).toBeTypeOf('number');
    await fetcher.close();
  });

  it('puts a URL back after Retry-After while tries are left, and passes the last answer on', async () => {
    kit = await stageKit();
    const fetcher = pageFetcher();
    let tries = 1;
    const stage = new FetchStage({ fetcher, prerequisites: fetcher, store: kit.store, refetch: false, retryLater: () => tries-- > 0, maxTries: 4, maxRetryBackoffMs: 120_000, fates: kit.fates, frontier: new HostQueues({ delayMs: 0, perHost: 1 }), counts: { errors: 0 } });
    const first = newJob(entry('/busy'));
    expect(await stage.process(first)).toBe('done');
    expect(first.notBefore).toBeGreaterThan(Date.now());
    expect(await stage.process(newJob(entry('/busy')))).toBe('continue');
    await fetcher.close();
  });

  it('skips a refused address with its reason: no request, no politeness slot', async () => {
    kit = await stageKit();
    const fetcher = pageFetcher({ allowPrivate: false });
    const stage = new FetchStage({ fetcher, prerequisites: fetcher, store: kit.store, refetch: false, retryLater: () => true, maxTries: 4, maxRetryBackoffMs: 120_000, fates: kit.fates, frontier: new HostQueues({ delayMs: 0, perHost: 1 }), counts: { errors: 0 } });
    const job = newJob(entry('/doc'));
    const before = site.requests.length;
    expect(await stage.process(job)).toBe('done');
    expect(job.ok).toBe(true);
    expect(job.startedAt).toBeUndefined();
    expect(site.requests.length).toBe(before);
    expect(await kit.log()).toMatchObject([{ reason: 'refused-address', status: 0 }]);
    await fetcher.close();
  });
});
