import diagnostics from 'node:diagnostics_channel';
import v8 from 'node:v8';
import { Dispatcher } from 'undici';
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { createHttpFetcher, staticLookup, buildUserAgent } from '../../src/fetch/index.ts';
import { startServer, type TestServer } from './server.ts';
import { startProxy, type TestProxy } from './hostile.ts';

const UA = buildUserAgent('https://example.test/crawler');
const timeouts = { connectTimeoutMs: 1000, headersTimeoutMs: 1000, totalTimeoutMs: 2000 };

let origin: TestServer;
let proxy: TestProxy;
const savedEnv = { ...process.env };

beforeAll(async () => {
  origin = await startServer({
    '/doc.ttl': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/turtle' });
      res.end('<s> <p> "via proxy?" .\n');
    },
    '/hang': () => undefined, // never answers
  });
  proxy = await startProxy();
});

afterEach(() => {
  for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
  proxy.seen.length = 0;
});

afterAll(async () => {
  await proxy?.close();
  await origin?.close();
});

describe('proxy', () => {
  it('serves plain http to many origins over the same connections to the proxy', async () => {
    // undici gave each origin a pool of its own to the proxy, kept for good: a connection and 16 KB per origin
    // (1.6 GB at 100,000 hosts, bench/frontier-hosts.bench.ts).
    const fetcher = createHttpFetcher({ userAgent: UA, allowPrivate: true, lookup: staticLookup({}), proxy: proxy.url, ...timeouts });
    let connections = 0;
    const onConnected = () => connections++;
    diagnostics.subscribe('undici:client:connected', onConnected);
    try {
      for (let i = 0; i < 40; i++) {
        const { error } = await fetcher.fetch(origin.url('/doc.ttl', `host${i}.example.test`));
        expect(error).toBeUndefined();
      }
      expect(proxy.seen.length).toBe(40);
      expect(connections).toBeLessThanOrEqual(2);
    } finally {
      diagnostics.unsubscribe('undici:client:connected', onConnected);
      await fetcher.close();
    }
  });

  it('keeps nothing of undici per origin: the live dispatchers do not grow with the hosts asked', async () => {
    // undici's ProxyAgent kept a wrapper dispatcher for every origin ever asked (it reports no disconnect), with its
    // listeners: memory that grew with hosts, about 1 KB each (bench/frontier-hosts.bench.ts).
    const fetcher = createHttpFetcher({ userAgent: UA, allowPrivate: true, lookup: staticLookup({}), proxy: proxy.url, ...timeouts });
    const live = () => v8.queryObjects(Dispatcher, { format: 'count' }) as number;
    try {
      await fetcher.fetch(origin.url('/doc.ttl', 'first.example.test'));
      const before = live();
      for (let i = 0; i < 200; i++) {
        const { error } = await fetcher.fetch(origin.url('/doc.ttl', `many${i}.example.test`));
        expect(error).toBeUndefined();
      }
      expect(proxy.seen.length).toBe(201);
      expect(live() - before).toBeLessThan(10);
    } finally {
      await fetcher.close();
    }
  });

  it('--proxy URL sends the request through the proxy, which resolves the name', async () => {
    // The fetcher itself knows no names: without the proxy this would be a DNS failure.
    const fetcher = createHttpFetcher({ userAgent: UA, allowPrivate: true, lookup: staticLookup({}), proxy: proxy.url, ...timeouts });
    try {
      const target = origin.url('/doc.ttl', 'far.example.test');
      const { response, error } = await fetcher.fetch(target);
      expect(error).toBeUndefined();
      expect(response!.body.toString()).toBe('<s> <p> "via proxy?" .\n');
      expect(response!.headers).toContainEqual(['via', '1.1 test-proxy']);
      expect(proxy.seen).toEqual([target]);
      expect(origin.lastHeaders.get('/doc.ttl')!['user-agent']).toBe(UA);
    } finally {
      await fetcher.close();
    }
  });

  it('HTTP_PROXY from the environment is used, NO_PROXY hosts go direct', async () => {
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = 'direct.example.test';
    const fetcher = createHttpFetcher({
      userAgent: UA,
      allowPrivate: true,
      lookup: staticLookup({ 'direct.example.test': '127.0.0.1' }),
      ...timeouts,
    });
    try {
      const viaProxy = await fetcher.fetch(origin.url('/doc.ttl', 'far.example.test'));
      expect(viaProxy.response!.status).toBe(200);
      expect(proxy.seen).toEqual([origin.url('/doc.ttl', 'far.example.test')]);
      const direct = await fetcher.fetch(origin.url('/doc.ttl', 'direct.example.test'));
      expect(direct.response!.status).toBe(200);
      expect(direct.response!.headers.find(([n]) => n === 'via')).toBeUndefined();
      expect(proxy.seen).toHaveLength(1);
    } finally {
      await fetcher.close();
    }
  });

  it('through a proxy, private targets are still refused unless allowPrivate', async () => {
    const fetcher = createHttpFetcher({
      userAgent: UA,
      lookup: staticLookup({ 'inside.example.test': '192.168.1.10' }),
      proxy: proxy.url,
      ...timeouts,
    });
    try {
      expect((await fetcher.fetch(origin.url('/doc.ttl'))).error!.code).toBe('blocked-address');
      expect((await fetcher.fetch(origin.url('/doc.ttl', 'inside.example.test'))).error!.code).toBe('blocked-address');
      expect(proxy.seen).toEqual([]);
    } finally {
      await fetcher.close();
    }
  });

  it('a name only the proxy knows is still fetched without allowPrivate, marked addressUnchecked; a checked one is not marked', async () => {
    const fetcher = createHttpFetcher({
      userAgent: UA,
      lookup: staticLookup({ 'public.example.test': '93.184.216.34' }),
      proxy: proxy.url,
      ...timeouts,
    });
    try {
      const unknown = await fetcher.fetch(origin.url('/doc.ttl', 'far.example.test'));
      expect(unknown.error).toBeUndefined();
      expect(unknown.response!.addressUnchecked).toBe(true);
      const known = await fetcher.fetch(origin.url('/doc.ttl', 'public.example.test'));
      expect(known.response!.status).toBe(200);
      expect(known.response!.addressUnchecked).toBeUndefined();
    } finally {
      await fetcher.close();
    }
  });

  it('30 proxied fetches sharing one caller signal add one abort listener, not one each (no MaxListenersExceededWarning)', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    const fetcher = createHttpFetcher({ userAgent: UA, allowPrivate: true, lookup: staticLookup({}), proxy: proxy.url, ...timeouts });
    const crawlSignal = new AbortController().signal;
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, (_, i) => fetcher.fetch(origin.url(`/doc.ttl?${i}`, `h${i % 5}.example.test`), undefined, crawlSignal)),
      );
      expect(outcomes.map((o) => o.response?.status)).toEqual(Array(30).fill(200));
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await fetcher.close();
    }
  });

  it('a caller abort still ends every fetch sharing the signal', async () => {
    const fetcher = createHttpFetcher({ userAgent: UA, allowPrivate: true, lookup: staticLookup({}), proxy: proxy.url, ...timeouts, totalTimeoutMs: 60_000, headersTimeoutMs: 60_000 });
    const controller = new AbortController();
    try {
      const pending = Promise.all(Array.from({ length: 3 }, (_, i) => fetcher.fetch(origin.url(`/hang?${i}`, 'far.example.test'), undefined, controller.signal)));
      setTimeout(() => controller.abort(), 100);
      const outcomes = await pending;
      expect(outcomes.map((o) => o.error?.code)).toEqual(['aborted', 'aborted', 'aborted']);
    } finally {
      await fetcher.close();
    }
  });
});
