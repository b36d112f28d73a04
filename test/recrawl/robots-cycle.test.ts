import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { runCycle } from '../../src/recrawl/cycle.ts';
import { openStore } from '../../src/store/index.ts';
import { hostOf } from '../../src/frontier/normalize.ts';
import { startServer } from '../../src/testkit/server.ts';
import { crawlLog, tempDir, warcFiles } from '../helpers.ts';

/** The payloads of the robots.txt response records of an archive, oldest first. */
async function robotsBodies(dataDir: string): Promise<string[]> {
  const out: Array<[string, string]> = [];
  for (const f of warcFiles(dataDir)) {
    for await (const rec of WARCParser.iterRecords(fs.createReadStream(f))) {
      if (rec.warcType !== 'response' || !rec.warcTargetURI?.endsWith('/robots.txt')) continue;
      expect(rec.warcHeader('WARC-Datamonitor-Fetched-For')).toBe('robots');
      out.push([rec.warcDate!, Buffer.from(await rec.readFully(true)).toString('utf8')]);
    }
  }
  return out.sort((a, b) => a[0].localeCompare(b[0])).map(([, body]) => body);
}

/**
 * A re-crawl cycle is a crawl of its own: the robots.txt it obeys is asked for again (the last cycle's
 * answer has expired for it), archived with the policy of its time, and spaced from the cycle's pages by
 * the host's one clock.
 */
describe('robots.txt in re-crawl cycles', () => {
  it('is archived again by each cycle, before and spaced from its pages', async () => {
    const DELAY = 200;
    let robots = 'User-agent: *\nDisallow: /private/\n';
    const server = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
      res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${url.href}> <http://example.org/p> "${Date.now()}" .\n`);
    });
    const dataDir = tempDir();
    const store = await openStore(dataDir);
    const lag = monitorEventLoopDelay({ resolution: 5 });
    try {
      await store.init();
      const cycle = async (path: string) => {
        const url = `${server.url}${path}`;
        await store.addDocuments([{ url, host: hostOf(url), depth: 0 }], { monitored: true, strategy: 'poisson', nextFetch: Date.now() - 1000 });
        const r = await runCycle({ dataDir, store, crawl: { delayMs: DELAY, allowPrivate: true, domains: ['127.0.0.1'] } });
        expect(r.status, r.note).toBe('done');
        return r.id;
      };
      lag.enable();
      const first = await cycle('/a');
      robots = 'User-agent: *\nDisallow: /\nAllow: /b\n';
      const second = await cycle('/b');
      lag.disable();
      expect(await robotsBodies(dataDir)).toEqual(['User-agent: *\nDisallow: /private/\n', robots]);
      const rows = crawlLog(dataDir).filter((e) => e.url === `${server.url}/robots.txt`);
      expect(rows.map((e) => [e.reason, e.cycle_id])).toEqual([['prerequisite', first], ['prerequisite', second]]);
      // As the server saw them: each cycle's robots.txt first, its page the delay after it.
      const seen = server.requests.map((q) => [q.path, q.time] as const);
      expect(seen.map(([p]) => p)).toEqual(['/robots.txt', '/a', '/robots.txt', '/b']);
      const slack = Math.max(10, lag.max / 1e6);
      expect(seen[1][1] - seen[0][1]).toBeGreaterThanOrEqual(DELAY - slack);
      expect(seen[3][1] - seen[2][1]).toBeGreaterThanOrEqual(DELAY - slack);
    } finally {
      await store.close();
      await server.close();
    }
  }, 30_000);
});
