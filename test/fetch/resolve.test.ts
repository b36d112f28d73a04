import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpFetcher, staticLookup, parseResolveEntry, buildUserAgent, type LookupFn } from '../../src/fetch/index.ts';
import { crawl } from '../../src/crawler/crawl.ts';
import { crawlOptionsFrom } from '../../src/cli/commands/crawl.ts';
import { UserError } from '../../src/util/errors.ts';
import { tempDir, crawlLog } from '../helpers.ts';

const UA = buildUserAgent('https://example.test/crawler');
const timeouts = { connectTimeoutMs: 2000, headersTimeoutMs: 2000, totalTimeoutMs: 4000 };

/** Stands in for the system resolver: knows `localhost` only, and never asks a DNS server. */
const system: LookupFn = async (name) => {
  if (name === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
};

let v6: http.Server;
let v4: http.Server;
const port = (s: http.Server) => (s.address() as AddressInfo).port;

beforeAll(async () => {
  const serve = (label: string) => http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(label));
  v6 = serve('over IPv6');
  v4 = serve('over IPv4');
  await new Promise<void>((r) => v6.listen(0, '::1', r));
  await new Promise<void>((r) => v4.listen(0, '127.0.0.1', r));
});

afterAll(async () => {
  for (const s of [v6, v4]) await new Promise<void>((r) => { s.closeAllConnections(); s.close(() => r()); });
});

describe('--resolve host:ip', () => {
  it.each([
    ['example.org:127.0.0.1', 'example.org', '127.0.0.1'],
    ['Example.ORG:[::1]', 'example.org', '::1'],
    ['example.org:::1', 'example.org', '::1'],
    ['example.org:2001:db8::7', 'example.org', '2001:db8::7'],
    ['example.org:[::ffff:127.0.0.1]', 'example.org', '::ffff:127.0.0.1'],
  ])('%s → %s at %s', (entry, host, ip) => {
    expect(parseResolveEntry(entry)).toEqual({ host, ip });
  });

  it.each(['example.org', ':127.0.0.1', 'example.org:', 'example.org:80:127.0.0.1', 'example.org:not-an-ip', 'example.org:[::1'])(
    '%j is refused with a one-line message, not a stack trace',
    (entry) => {
      expect(() => parseResolveEntry(entry)).toThrow(/must look like host:ip|is not an IPv4 or IPv6 address/);
    },
  );

  it('an IPv6 address (bracketed or not) is fetched over IPv6', async () => {
    for (const ip of ['[::1]', '::1']) {
      const fetcher = createHttpFetcher({ userAgent: UA, allowPrivate: true, lookup: staticLookup({ 'six.example.test': ip }, system), ...timeouts });
      try {
        const { response, error } = await fetcher.fetch(`http://six.example.test:${port(v6)}/`);
        expect(error).toBeUndefined();
        expect(response!.body.toString()).toBe('over IPv6');
        expect(response!.remoteAddress).toBe('::1');
      } finally {
        await fetcher.close();
      }
    }
  });

  it('adds to system resolution: other names (localhost) still resolve', async () => {
    const fetcher = createHttpFetcher({ userAgent: UA, allowPrivate: true, lookup: staticLookup({ 'six.example.test': '::1' }, system), ...timeouts });
    try {
      const { response, error } = await fetcher.fetch(`http://localhost:${port(v4)}/`);
      expect(error).toBeUndefined();
      expect(response!.body.toString()).toBe('over IPv4');
      expect((await fetcher.fetch(`http://nowhere.example.test:${port(v4)}/`)).error!.code).toBe('dns');
    } finally {
      await fetcher.close();
    }
  });

  it('a name resolved by --resolve to a private address is refused without allowPrivate', async () => {
    const fetcher = createHttpFetcher({ userAgent: UA, lookup: staticLookup({ 'six.example.test': '[::1]', 'four.example.test': '127.0.0.1' }, system), ...timeouts });
    try {
      expect((await fetcher.fetch(`http://six.example.test:${port(v6)}/`)).error!.code).toBe('blocked-address');
      expect((await fetcher.fetch(`http://four.example.test:${port(v4)}/`)).error!.code).toBe('blocked-address');
    } finally {
      await fetcher.close();
    }
  });
});

describe('crawl --resolve', () => {
  it('the flag takes IPv6 in both forms and names a bad value without a stack trace', async () => {
    const data = tempDir();
    expect((await crawlOptionsFrom({ data, resolve: ['a.example.test:[::1]', 'b.example.test:::1'] }, [])).resolve).toEqual({ 'a.example.test': '::1', 'b.example.test': '::1' });
    await expect(crawlOptionsFrom({ data, resolve: ['a.example.test:nope'] }, [])).rejects.toThrow(UserError);
    await expect(crawlOptionsFrom({ data, resolve: ['a.example.test:nope'] }, [])).rejects.toThrow(/--resolve 'a.example.test:nope': 'nope' is not an IPv4 or IPv6 address/);
  });

  it('a crawl with --resolve to IPv6 still resolves localhost through the system', async () => {
    const dataDir = tempDir();
    await crawl({
      seeds: [`http://six.example.test:${port(v6)}/`, `http://localhost:${port(v4)}/`],
      dataDir,
      resolve: { 'six.example.test': '::1' },
      allowPrivate: true,
      robots: false,
      vocabularies: false,
      delayMs: 0,
      timeoutMs: 2000,
    }).run();
    const log = crawlLog(dataDir);
    expect(log.map((r) => [r.url, r.status]).sort()).toEqual([
      [`http://localhost:${port(v4)}/`, 200],
      [`http://six.example.test:${port(v6)}/`, 200],
    ]);
  });
});
