import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHttpFetcher, staticLookup, buildUserAgent, RobotsCache, type Fetcher } from '../../src/fetch/index.ts';
import { startServer, type TestServer } from './server.ts';

const UA = buildUserAgent('https://example.test/crawler');

/** robots.txt per host name (all on one 127.0.0.1 server); a function answers with a status. */
const robotsByHost: Record<string, string | number | 'hang'> = {
  'rules.example.test': ['User-agent: otherbot', 'Disallow: /', '', 'User-agent: datamonitor', 'Disallow: /private', 'Crawl-delay: 2', '', 'User-agent: *', 'Disallow: /'].join('\n'),
  'slowpoke.example.test': 'User-agent: *\nCrawl-delay: 120\n',
  'everyone.example.test': 'User-agent: *\nDisallow: /no\n',
  'missing.example.test': 404,
  'forbidden.example.test': 403,
  'broken.example.test': 500,
  'busy.example.test': 429,
  'hang.example.test': 'hang',
  'big.example.test': `User-agent: *\nDisallow: /early\n${'# padding padding padding padding\n'.repeat(20_000)}Disallow: /late\n`,
};

let server: TestServer;
let fetcher: Fetcher;
const robotsHits = new Map<string, number>();

beforeAll(async () => {
  server = await startServer({
    '/robots.txt': (req, res) => {
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      robotsHits.set(host, (robotsHits.get(host) ?? 0) + 1);
      const answer = robotsByHost[host];
      if (answer === 'hang') return; // never answers: the fetcher's header timeout fires
      if (typeof answer === 'number') {
        res.writeHead(answer, { 'content-type': 'text/plain' });
        res.end('error page');
        return;
      }
      res.writeHead(answer === undefined ? 404 : 200, { 'content-type': 'text/plain' });
      res.end(answer ?? '');
    },
  });
  const names = Object.fromEntries(Object.keys(robotsByHost).map((h) => [h, '127.0.0.1']));
  fetcher = createHttpFetcher({ userAgent: UA, allowPrivate: true, lookup: staticLookup(names), connectTimeoutMs: 1000, headersTimeoutMs: 300, totalTimeoutMs: 1000 });
});

afterAll(async () => {
  await fetcher?.close();
  await server?.close();
});

const url = (host: string, path: string) => server.url(path, host);

describe('RobotsCache', () => {
  it('applies the group of our product token: Disallow and Crawl-delay', async () => {
    const robots = new RobotsCache(fetcher, { userAgent: UA });
    expect(await robots.check(url('rules.example.test', '/private/x.ttl'))).toEqual({ allowed: false, crawlDelayMs: 2000 });
    expect(await robots.check(url('rules.example.test', '/public/x.ttl'))).toEqual({ allowed: true, crawlDelayMs: 2000 });
    // a crawler named otherwise falls into the '*' group
    const other = new RobotsCache(fetcher, { userAgent: 'somebot/1.0' });
    expect(await other.check(url('rules.example.test', '/public/x.ttl'))).toMatchObject({ allowed: false });
  });

  it('caps Crawl-delay at 30 s', async () => {
    const robots = new RobotsCache(fetcher, { userAgent: UA });
    expect(await robots.check(url('slowpoke.example.test', '/a'))).toEqual({ allowed: true, crawlDelayMs: 30_000 });
  });

  it('fetches robots.txt once per host while cached, again after the 24 h expiry', async () => {
    let clock = Date.now();
    const robots = new RobotsCache(fetcher, { userAgent: UA, now: () => clock });
    const before = robotsHits.get('everyone.example.test') ?? 0;
    const verdicts = await Promise.all([robots.check(url('everyone.example.test', '/a')), robots.check(url('everyone.example.test', '/no/b'))]);
    expect(verdicts).toEqual([{ allowed: true }, { allowed: false }]);
    expect(await robots.check(url('everyone.example.test', '/c'))).toEqual({ allowed: true });
    expect(robotsHits.get('everyone.example.test')! - before).toBe(1);
    clock += 23 * 3_600_000;
    await robots.check(url('everyone.example.test', '/d'));
    expect(robotsHits.get('everyone.example.test')! - before).toBe(1);
    clock += 2 * 3_600_000;
    await robots.check(url('everyone.example.test', '/d'));
    expect(robotsHits.get('everyone.example.test')! - before).toBe(2);
  });

  it('a 404 or 403 robots.txt means allow-all', async () => {
    const robots = new RobotsCache(fetcher, { userAgent: UA });
    expect(await robots.check(url('missing.example.test', '/anything'))).toEqual({ allowed: true });
    expect(await robots.check(url('forbidden.example.test', '/anything'))).toEqual({ allowed: true });
  });

  it('a 500, a 429 or a timeout defers the host for 5 minutes, cached until then', async () => {
    let clock = Date.now();
    const robots = new RobotsCache(fetcher, { userAgent: UA, now: () => clock });
    for (const host of ['broken.example.test', 'busy.example.test', 'hang.example.test']) {
      const verdict = await robots.check(url(host, '/x'));
      expect('deferUntil' in verdict, host).toBe(true);
      if (!('deferUntil' in verdict)) continue;
      expect(verdict.deferUntil.getTime()).toBe(clock + 5 * 60_000);
      expect(verdict.reason).toContain(host);
    }
    const hits = robotsHits.get('broken.example.test');
    await robots.check(url('broken.example.test', '/y'));
    expect(robotsHits.get('broken.example.test')).toBe(hits);
    clock += 5 * 60_000 + 1;
    await robots.check(url('broken.example.test', '/y'));
    expect(robotsHits.get('broken.example.test')).toBe(hits! + 1);
  });

  it('reads at most 500 KiB of robots.txt: a rule past that is ignored', async () => {
    const robots = new RobotsCache(fetcher, { userAgent: UA });
    expect(await robots.check(url('big.example.test', '/early'))).toEqual({ allowed: false });
    expect(await robots.check(url('big.example.test', '/late'))).toEqual({ allowed: true });
    expect(robots.get(url('big.example.test', '/'))!.text.length).toBe(500 * 1024);
  });

  it('reports each robots.txt fetch (host, status, text) for the hosts table', async () => {
    const seen: Array<[string, number, string]> = [];
    const robots = new RobotsCache(fetcher, { userAgent: UA, onFetched: (host, status, text) => seen.push([host, status, text]) });
    await robots.check(url('everyone.example.test', '/a'));
    await robots.check(url('broken.example.test', '/a'));
    expect(seen).toEqual([
      [`everyone.example.test:${server.port}`, 200, robotsByHost['everyone.example.test']],
      [`broken.example.test:${server.port}`, 500, ''],
    ]);
    expect(robots.get(url('everyone.example.test', '/zzz'))).toMatchObject({ status: 200 });
  });

  it('never blocks /robots.txt itself and does not crash on a bad URL', async () => {
    const robots = new RobotsCache(fetcher, { userAgent: UA });
    expect(await robots.check(url('rules.example.test', '/robots.txt'))).toEqual({ allowed: true });
    expect(await robots.check('not a url')).toEqual({ allowed: true });
  });
});
