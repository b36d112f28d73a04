import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedirectStage } from '../../../src/crawler/stages/redirect.ts';
import { newJob } from '../../../src/crawler/stages/types.ts';
import { WarcWriter } from '../../../src/archive/warc-writer.ts';
import { startServer, type TestServer } from '../../../src/testkit/server.ts';
import { hostOf } from '../../../src/frontier/normalize.ts';
import { pageFetcher, stageKit } from './kit.ts';

describe('the redirect stage', () => {
  let site: TestServer;
  let kit: Awaited<ReturnType<typeof stageKit>>;
  beforeAll(async () => {
    site = await startServer((_req, res, url) => {
      if (url.pathname === '/id/x') return res.writeHead(303, { location: '/doc' }).end();
      res.writeHead(200, { 'content-type': 'text/turtle' }).end('<a> <b> <c> .\n');
    });
  });
  afterAll(() => site.close());
  afterEach(() => kit.close());

  it('archives the hop, logs it as redirected, and offers the target at the same depth with one more hop', async () => {
    kit = await stageKit();
    const fetcher = pageFetcher();
    const warc = new WarcWriter(kit.dir);
    const stage = new RedirectStage({ warc, store: kit.fates.store, fates: kit.fates, scope: kit.scope, refetch: false });
    const job = newJob({ url: `${site.url}/id/x`, host: hostOf(site.url), origin: site.url, depth: 2, key: 0 });
    job.outcome = await fetcher.fetch(job.entry.url);
    expect(stage.shouldProcess(job)).toBe(true);
    expect(await stage.process(job)).toBe('continue');
    expect(job.redirected).toBe(true);
    const [row] = await kit.store.log();
    expect(row).toMatchObject({ url: `${site.url}/id/x`, status: 303, reason: 'redirected', triples: 0 });
    expect(row.warcFile).toBeDefined();
    expect(kit.frontier.pop(Date.now())).toMatchObject({ url: `${site.url}/doc`, depth: 2, via: [`${site.url}/id/x`] });
    // A second IRI that leads to the same document adds nothing to the frontier: the seen test has it.
    const again = newJob({ url: `${site.url}/id/x`, host: hostOf(site.url), origin: site.url, depth: 2, key: 1 });
    again.outcome = await fetcher.fetch(again.entry.url);
    await stage.process(again);
    expect(kit.frontier.size).toBe(0);
    await warc.close();
    await fetcher.close();
  });

  it('has nothing to do with a response that is not a redirect', async () => {
    kit = await stageKit();
    const fetcher = pageFetcher();
    const stage = new RedirectStage({ warc: new WarcWriter(kit.dir), store: kit.store, fates: kit.fates, scope: kit.scope, refetch: false });
    const job = newJob({ url: `${site.url}/doc`, host: hostOf(site.url), origin: site.url, depth: 0, key: 0 });
    job.outcome = await fetcher.fetch(job.entry.url);
    expect(stage.shouldProcess(job)).toBe(false);
    await fetcher.close();
  });
});
