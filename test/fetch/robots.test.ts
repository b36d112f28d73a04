import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHttpFetcher, staticLookup, buildUserAgent, RobotsCache, type Fetcher } from '../../src/fetch/index.ts';
import { closedPort, startServer, type TestServer } from './server.ts';
import { answer, startRawHttp } from '../../src/testkit/faults/raw.ts';
import { SqliteFrontierSpill } from '../../src/frontier/spill.ts';
import { tempDir } from '../helpers.ts';

const UA = buildUserAgent('https://example.test/crawler');

/** robots.txt per host name (all on one 127.0.0.1 server); a function answers with a status. */
const robotsByHost: Record<string, string | number | 'hang' | 'redirect' | 'endless' | [number, string]> = {
  'rules.example.test': ['User-agent: otherbot', 'Disallow: /', '', 'User-agent: datamonitor', 'Disallow: /private', 'Crawl-delay: 2', '', 'User-agent: *', 'Disallow: /'].join('\n'),
  'slowpoke.example.test': 'User-agent: *\nCrawl-delay: 120\n',
  'everyone.example.test': 'User-agent: *\nDisallow: /no\n',
  'missing.example.test': 404,
  'forbidden.example.test': 403,
  'broken.example.test': 500,
  'busy.example.test': 429,
  'hang.example.test': 'hang',
  'patient.example.test': [503, '600'],
  'forever.example.test': [503, '315360000'],
  'mixed.example.test': 500,
  'redirects.example.test': 'redirect',
  'endless.example.test': 'endless',
  'big.example.test': `User-agent: *\nDisallow: /early\n${'# padding padding padding padding\n'.repeat(20_000)}Disallow: /late\n`,
};

/** A robots.txt whose body never ends (a 100 MB robots.txt and worse): rules first, then comments until the reader hangs up. */
function endless(res: import('node:http').ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.write('User-agent: *\nDisallow: /early\n');
  const line = Buffer.from('# padding padding padding padding padding padding padding\n'.repeat(1000));
  let sent = 0;
  const more = (): void => {
    while (!res.destroyed && sent < 512 * 1024 * 1024) {
      sent += line.length;
      if (!res.write(line)) return void res.once('drain', more);
    }
    res.end();
  };
  res.on('close', () => res.destroy());
  more();
}

let server: TestServer;
let fetcher: Fetcher;
let impatient: Fetcher;
const robotsHits = new Map<string, number>();

beforeAll(async () => {
  server = await startServer({
    '/robots.txt': (req, res) => {
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      robotsHits.set(host, (robotsHits.get(host) ?? 0) + 1);
      const answer = robotsByHost[host];
      if (answer === 'hang') return; // never answers: the fetcher's header timeout fires
      if (answer === 'redirect') {
        // An endless chain of redirects: /robots.txt?hop=1, ?hop=2, …
        const hop = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('hop') ?? 0) + 1;
        res.writeHead(301, { location: `/robots.txt?hop=${hop}` });
        return res.end();
      }
      if (answer === 'endless') return endless(res);
      if (Array.isArray(answer)) {
        res.writeHead(answer[0], { 'content-type': 'text/plain', 'retry-after': answer[1] });
        return res.end('later');
      }
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
  // Patient: a loaded machine (#14) can take seconds for this process's server to answer. Only the
  // robots.txt that never answers is asked with a short headers limit (`impatient`).
  fetcher = createHttpFetcher({ userAgent: UA, allowPrivate: true, lookup: staticLookup(names), connectTimeoutMs: 30_000, headersTimeoutMs: 30_000, totalTimeoutMs: 60_000 });
  impatient = createHttpFetcher({ userAgent: UA, allowPrivate: true, lookup: staticLookup(names), connectTimeoutMs: 30_000, headersTimeoutMs: 300, totalTimeoutMs: 60_000 });
});

afterAll(async () => {
  await fetcher?.close();
  await impatient?.close();
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

  it('with room for one origin in memory, the others\' answers wait in the store and read back the same, fetched once', async () => {
    const spill = new SqliteFrontierSpill(tempDir());
    try {
      const robots = new RobotsCache(fetcher, { userAgent: UA, memory: { maxOrigins: 1, store: spill } });
      const hosts = ['rules.example.test', 'everyone.example.test', 'missing.example.test', 'broken.example.test'];
      const before = hosts.map((h) => robotsHits.get(h) ?? 0);
      const ask = async () => [
        await robots.check(url('rules.example.test', '/private/x.ttl')), await robots.check(url('rules.example.test', '/public/x.ttl')),
        await robots.check(url('everyone.example.test', '/no/b')), await robots.check(url('missing.example.test', '/anything')),
        await robots.check(url('broken.example.test', '/a')),
      ];
      const first = await ask();
      expect(first.slice(0, 4)).toEqual([{ allowed: false, crawlDelayMs: 2000 }, { allowed: true, crawlDelayMs: 2000 }, { allowed: false }, { allowed: true }]);
      expect(first[4]).toMatchObject({ deferUntil: expect.any(Date) });
      // Every origin but the last asked left memory; each comes back from the store as it was.
      expect(spill.robots(new URL(url('rules.example.test', '/')).origin)).toContain('Crawl-delay: 2');
      expect(await ask()).toEqual(first);
      expect(robots.peek(url('rules.example.test', '/private/y'))).toEqual({ allowed: false, crawlDelayMs: 2000 });
      expect(hosts.map((h, i) => (robotsHits.get(h) ?? 0) - before[i]!)).toEqual([1, 1, 1, 1]);
    } finally {
      spill.close();
    }
  });

  it('a 404 or 403 robots.txt means allow-all', async () => {
    const robots = new RobotsCache(fetcher, { userAgent: UA });
    expect(await robots.check(url('missing.example.test', '/anything'))).toEqual({ allowed: true });
    expect(await robots.check(url('forbidden.example.test', '/anything'))).toEqual({ allowed: true });
  });

  it('a 500, a 429 or a timeout defers the origin 30 s, cached until then, then tries again', async () => {
    let clock = Date.now();
    const robots = new RobotsCache(fetcher, { userAgent: UA, now: () => clock });
    const hangRobots = new RobotsCache(impatient, { userAgent: UA, now: () => clock });
    for (const host of ['broken.example.test', 'busy.example.test', 'hang.example.test']) {
      const verdict = await (host === 'hang.example.test' ? hangRobots : robots).check(url(host, '/x'));
      expect('deferUntil' in verdict, host).toBe(true);
      if (!('deferUntil' in verdict)) continue;
      expect(verdict.deferUntil.getTime()).toBe(clock + 30_000);
      expect(verdict.reason).toContain(host);
    }
    const hits = robotsHits.get('broken.example.test');
    await robots.check(url('broken.example.test', '/y'));
    expect(robotsHits.get('broken.example.test')).toBe(hits);
    clock += 30_000 + 1;
    await robots.check(url('broken.example.test', '/y'));
    expect(robotsHits.get('broken.example.test')).toBe(hits! + 1);
  });

  it('tries a failing robots.txt a bounded number of times with a doubling wait, then gives the origin up for the error TTL', async () => {
    let clock = Date.now();
    const robots = new RobotsCache(fetcher, { userAgent: UA, now: () => clock, retries: 2, retryDelayMs: 1000 });
    const target = url('broken.example.test', '/page');
    const before = robotsHits.get('broken.example.test') ?? 0;
    const waits: number[] = [];
    for (let i = 0; i < 2; i++) {
      const v = await robots.check(target);
      if (!('deferUntil' in v)) throw new Error(`expected a deferral, got ${JSON.stringify(v)}`);
      waits.push(v.deferUntil.getTime() - clock);
      clock = v.deferUntil.getTime();
    }
    expect(waits).toEqual([1000, 2000]);
    const last = await robots.check(target);
    expect(last).toMatchObject({ unavailable: true });
    if ('unavailable' in last) expect(last.reason).toMatch(/broken\.example\.test.*500.*3 tries/);
    expect(robotsHits.get('broken.example.test')! - before).toBe(3);
    // Every URL of the origin now has its verdict at once, without a request, for the error TTL (1 h).
    clock += 59 * 60_000;
    expect(robots.peek(url('broken.example.test', '/other'))).toMatchObject({ unavailable: true });
    expect(await robots.check(url('broken.example.test', '/other'))).toMatchObject({ unavailable: true });
    expect(robotsHits.get('broken.example.test')! - before).toBe(3);
    // After it, the origin gets a fresh set of tries.
    clock += 2 * 60_000;
    expect(await robots.check(target)).toMatchObject({ deferUntil: new Date(clock + 1000) });
  });

  it('honours Retry-After on a robots.txt 503, up to the cap', async () => {
    const clock = Date.now();
    const robots = new RobotsCache(fetcher, { userAgent: UA, now: () => clock });
    // (The fetcher dates Retry-After by the real clock as the answer comes: allow for the request's time.)
    const patient = await robots.check(url('patient.example.test', '/x'));
    if (!('deferUntil' in patient)) throw new Error(`expected a deferral, got ${JSON.stringify(patient)}`);
    expect(patient.deferUntil.getTime() - clock).toBeGreaterThanOrEqual(600_000);
    expect(patient.deferUntil.getTime() - clock).toBeLessThan(610_000);
    // Ten years is cut to the one-hour cap: the wait stays finite and bounded.
    expect(await robots.check(url('forever.example.test', '/x'))).toMatchObject({ deferUntil: new Date(clock + 3_600_000) });
  });

  it('keeps robots.txt trouble to its origin: the same host name on another port is unaffected', async () => {
    const other = await startServer({
      '/robots.txt': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /no\n'),
    });
    try {
      const robots = new RobotsCache(fetcher, { userAgent: UA, retries: 0 });
      expect(await robots.check(url('mixed.example.test', '/a'))).toMatchObject({ unavailable: true });
      expect(await robots.check(other.url('/a', 'mixed.example.test'))).toEqual({ allowed: true });
      expect(await robots.check(other.url('/no/b', 'mixed.example.test'))).toEqual({ allowed: false });
      expect(robots.peek(url('mixed.example.test', '/c'))).toMatchObject({ unavailable: true });
    } finally {
      await other.close();
    }
  });

  it('peek answers from the cache only', async () => {
    const requests: string[] = [];
    const counting: Fetcher = { fetch: (u, ...rest) => (requests.push(new URL(u).origin), fetcher.fetch(u, ...rest)), close: () => fetcher.close() };
    const robots = new RobotsCache(counting, { userAgent: UA });
    expect(robots.peek(url('everyone.example.test', '/no/x'))).toBeUndefined();
    await robots.check(url('everyone.example.test', '/a'));
    expect(robots.peek(url('everyone.example.test', '/no/x'))).toEqual({ allowed: false });
    expect(robots.peek(url('everyone.example.test', '/yes'))).toEqual({ allowed: true });
    expect(robots.peek(url('everyone.example.test', '/robots.txt'))).toEqual({ allowed: true });
    expect(requests).toEqual([`http://everyone.example.test:${server.port}`]);
  });

  it('hands its robots.txt out as a prerequisite when not known or expired, once, and answers the checks waiting on it', async () => {
    let now = Date.now();
    let ownFetches = 0;
    const counting: Fetcher = { fetch: (u, ...rest) => (ownFetches++, fetcher.fetch(u, ...rest)), close: () => fetcher.close() };
    const robots = new RobotsCache(counting, { userAgent: UA, successTtlMs: 60_000, now: () => now });
    const page = url('everyone.example.test', '/no/x');
    const robotsUrl = robots.prerequisite(page);
    expect(robotsUrl).toBe(url('everyone.example.test', '/robots.txt'));
    expect(robots.prerequisite(url('everyone.example.test', '/other'))).toBeUndefined(); // under way
    const waiting = robots.check(page);
    robots.settle(robotsUrl!, await fetcher.fetch(robotsUrl!, undefined, undefined, { accept: 'text/plain' }));
    expect(await waiting).toEqual({ allowed: false });
    expect(ownFetches).toBe(0);
    expect(robots.prerequisite(page)).toBeUndefined();
    now += 60_001; // expired: the next URL of the origin waits for a new one
    expect(robots.prerequisite(page)).toBe(robotsUrl);
    // An answer that cannot be kept (a refused address) lets the next check through, once, for the URL's own fetch to fail.
    robots.settle(robotsUrl!, { error: { code: 'blocked-address', message: 'refused' } });
    expect(robots.prerequisite(page)).toBeUndefined();
    expect(await robots.check(page)).toEqual({ allowed: true });
    expect(robots.prerequisite(page)).toBe(robotsUrl);
  });

  it('a robots.txt that redirects without end counts as unavailable: allow all (RFC 9309 2.3.1.2)', async () => {
    const robots = new RobotsCache(fetcher, { userAgent: UA });
    expect(await robots.check(url('redirects.example.test', '/x'))).toEqual({ allowed: true });
    expect(robots.get(url('redirects.example.test', '/'))).toMatchObject({ status: 0 });
  });

  it('reads a robots.txt that never ends only up to the fetcher\'s body limit', async () => {
    const small = createHttpFetcher({ userAgent: UA, allowPrivate: true, lookup: staticLookup({ 'endless.example.test': '127.0.0.1' }), connectTimeoutMs: 30_000, headersTimeoutMs: 30_000, totalTimeoutMs: 60_000, maxBodyBytes: 256 * 1024, maxInflatedBytes: 256 * 1024 });
    try {
      const robots = new RobotsCache(small, { userAgent: UA, maxBytes: 64 * 1024 });
      expect(await robots.check(url('endless.example.test', '/early'))).toEqual({ allowed: false });
      expect(robots.get(url('endless.example.test', '/'))!.text.length).toBe(64 * 1024);
    } finally {
      await small.close();
    }
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

  it('a refused connection is not deferred: the page fetch is let through to fail with its own reason, and nothing is cached', async () => {
    const dead = await closedPort();
    const robots = new RobotsCache(fetcher, { userAgent: UA });
    expect(await robots.check(`http://127.0.0.1:${dead}/x`)).toEqual({ allowed: true });
    expect(robots.peek(`http://127.0.0.1:${dead}/x`)).toBeUndefined();
  });

  it('a reset robots.txt connection defers the origin like a timeout: the page is not let through without the rules', async () => {
    let tries = 0;
    const flaky = await startRawHttp((_req, socket) => {
      if (++tries === 1) return socket.resetAndDestroy();
      answer(socket, 200, 'User-agent: *\nDisallow: /private\n', { 'Content-Type': 'text/plain' });
    });
    try {
      let clock = Date.now();
      const robots = new RobotsCache(fetcher, { userAgent: UA, now: () => clock });
      const first = await robots.check(`${flaky.url}/private`);
      // Before: { allowed: true }, and the crawl fetched /private.
      expect('deferUntil' in first && first.reason).toMatch(/not reachable: connection reset/);
      clock += 30_000 + 1;
      expect(await robots.check(`${flaky.url}/private`)).toMatchObject({ allowed: false });
      expect(tries).toBe(2);
    } finally {
      await flaky.close();
    }
  });

  it('never blocks /robots.txt itself and does not crash on a bad URL', async () => {
    const robots = new RobotsCache(fetcher, { userAgent: UA });
    expect(await robots.check(url('rules.example.test', '/robots.txt'))).toEqual({ allowed: true });
    expect(await robots.check('not a url')).toEqual({ allowed: true });
  });
});
