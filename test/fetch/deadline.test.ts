import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createHttpFetcher, staticLookup, buildUserAgent, reasonOfFetchError, type FetchOutcome, type HttpFetcherOptions } from '../../src/fetch/index.ts';
import { startRawServer, startProxy, trickle, onRequest, type RawServer, type TestProxy } from './hostile.ts';

const UA = buildUserAgent('https://example.test/crawler');
/**
 * Every phase patient by default; each test shortens only the phase it is about. A loaded machine (the
 * suite beside other work, #14) can take seconds to connect to 127.0.0.1 or to do a TLS handshake with a
 * server in this process: a short limit on a phase before the one under test would end it there instead.
 */
const limits = { connectTimeoutMs: 30_000, tlsTimeoutMs: 30_000, headersTimeoutMs: 30_000, bodyIdleTimeoutMs: 30_000, totalTimeoutMs: 60_000 };
/** Generous: a fetch that hangs takes minutes; one that honours its deadline ends in about a second. */
const BOUND_MS = 8000;

const HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n';

let silent: RawServer;
let slowHeaders: RawServer;
let slowBody: RawServer;
let endless: RawServer;
let stalledBody: RawServer;
let resetMidBody: RawServer;
let garbage: RawServer;
let proxy: TestProxy;
let silentProxy: TestProxy;
/** A real TLS server whose certificate (test/fetch/fixtures, self-signed, for far.example.test) nobody trusts. */
let selfSigned: https.Server;

beforeAll(async () => {
  silent = await startRawServer(() => undefined); // accepts, never answers (not even to a TLS ClientHello)
  slowHeaders = await startRawServer(onRequest((s) => trickle(s, HEAD + 'x-slow: ' + 'a'.repeat(100) + '\r\n\r\n', 100)));
  slowBody = await startRawServer(onRequest((s) => {
    s.write(HEAD + 'content-length: 1000\r\n\r\n');
    trickle(s, 'b'.repeat(1000), 100); // never idle long enough for the idle timeout: only the total can end it
  }));
  endless = await startRawServer(onRequest((s) => {
    s.write(HEAD + 'connection: close\r\n\r\n'); // no Content-Length: the body ends when the connection does, which is never
    const timer = setInterval(() => s.write('more '), 50);
    s.on('close', () => clearInterval(timer));
  }));
  stalledBody = await startRawServer(onRequest((s) => s.write(HEAD + 'content-length: 100\r\n\r\nhalf')));
  resetMidBody = await startRawServer(onRequest((s) => {
    s.write(HEAD + 'content-length: 100000\r\n\r\n' + 'x'.repeat(1000));
    setTimeout(() => s.resetAndDestroy(), 50);
  }));
  garbage = await startRawServer((s) => s.write('this is not a TLS ServerHello\r\n\r\n'));
  proxy = await startProxy();
  silentProxy = await startProxy({ silentConnect: true });
  const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, 'fixtures', name));
  selfSigned = https.createServer({ key: fixture('self-signed.key'), cert: fixture('self-signed.crt') }, (_req, res) => res.end('secret'));
  await new Promise<void>((resolve) => selfSigned.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const s of [silent, slowHeaders, slowBody, endless, stalledBody, resetMidBody, garbage, proxy, silentProxy]) await s?.close();
  await new Promise<void>((resolve) => (selfSigned ? selfSigned.close(() => resolve()) : resolve()));
});

async function timed(url: string, extra: Partial<HttpFetcherOptions> = {}): Promise<FetchOutcome & { ms: number }> {
  const fetcher = createHttpFetcher({ userAgent: UA, allowPrivate: true, ...limits, ...extra });
  const t0 = Date.now();
  try {
    const out = await fetcher.fetch(url);
    return { ...out, ms: Date.now() - t0 };
  } finally {
    await fetcher.close();
  }
}

describe('every request ends by its deadline, with the phase that ran out', () => {
  it('a server that accepts and never answers: headers timeout', async () => {
    const out = await timed(`http://127.0.0.1:${silent.port}/x`, { headersTimeoutMs: 600 });
    expect(out.error).toMatchObject({ code: 'timeout', phase: 'headers' });
    expect(reasonOfFetchError(out.error!)).toBe('timeout-headers');
    expect(out.ms).toBeLessThan(BOUND_MS);
  });

  it('headers sent one byte at a time (slow loris): headers timeout, though bytes keep coming', async () => {
    const out = await timed(`http://127.0.0.1:${slowHeaders.port}/x`, { headersTimeoutMs: 600 });
    expect(out.error).toMatchObject({ code: 'timeout', phase: 'headers' });
    expect(out.ms).toBeLessThan(BOUND_MS);
  });

  it('a body trickling under the idle limit: total timeout', async () => {
    const out = await timed(`http://127.0.0.1:${slowBody.port}/x`, { bodyIdleTimeoutMs: 1500, totalTimeoutMs: 3000 });
    expect(out.error).toMatchObject({ code: 'timeout', phase: 'total' });
    expect(reasonOfFetchError(out.error!)).toBe('timeout-total');
    expect(out.ms).toBeLessThan(BOUND_MS);
  });

  it('a body without Content-Length that never ends: total timeout', async () => {
    const out = await timed(`http://127.0.0.1:${endless.port}/x`, { totalTimeoutMs: 1500 });
    expect(out.error).toMatchObject({ code: 'timeout', phase: 'total' });
    expect(out.ms).toBeLessThan(BOUND_MS);
  });

  it('a body that stops half-way: body (idle) timeout', async () => {
    const out = await timed(`http://127.0.0.1:${stalledBody.port}/x`, { bodyIdleTimeoutMs: 500 });
    expect(out.error).toMatchObject({ code: 'timeout', phase: 'body' });
    expect(reasonOfFetchError(out.error!)).toBe('timeout-body');
    expect(out.ms).toBeLessThan(BOUND_MS);
  });

  it('a connection reset mid-body: connection-reset', async () => {
    const out = await timed(`http://127.0.0.1:${resetMidBody.port}/x`);
    expect(out.error).toMatchObject({ code: 'connect', network: 'reset' });
    expect(reasonOfFetchError(out.error!)).toBe('connection-reset');
  });

  it('https to a server that never says a word: TLS timeout', async () => {
    const out = await timed(`https://127.0.0.1:${silent.port}/x`, { connectTimeoutMs: 800, tlsTimeoutMs: 700 }); // the TLS limit counts once the connect limit is spent
    expect(out.error).toMatchObject({ code: 'timeout', phase: 'tls' });
    expect(reasonOfFetchError(out.error!)).toBe('timeout-tls');
    expect(out.ms).toBeLessThan(BOUND_MS);
  });

  it('https to a server that answers garbage: tls error', async () => {
    const out = await timed(`https://127.0.0.1:${garbage.port}/x`);
    expect(out.error).toMatchObject({ code: 'tls' });
    expect(reasonOfFetchError(out.error!)).toBe('tls-error');
  });

  it('https with a certificate nobody trusts: tls error (the handshake itself works)', async () => {
    const out = await timed(`https://far.example.test:${(selfSigned.address() as AddressInfo).port}/x`, { lookup: staticLookup({ 'far.example.test': '127.0.0.1' }) });
    expect(out.error).toMatchObject({ code: 'tls' });
    expect(out.error!.message).toMatch(/self-signed/);
  });

  it('the total caps every phase: a long headers limit still ends at the total', async () => {
    const out = await timed(`http://127.0.0.1:${silent.port}/x`, { headersTimeoutMs: 60_000, totalTimeoutMs: 700 });
    expect(out.error).toMatchObject({ code: 'timeout', phase: 'total' });
    expect(out.ms).toBeLessThan(BOUND_MS);
  });
});

describe('a process that was busy while the answer came', () => {
  it('reads the headers that arrived before it calls the phase over: a response, not a headers timeout', async () => {
    // The server (in this process) answers at once, then keeps the process busy past the headers limit,
    // as a loaded machine or a long synchronous task would: when the process runs again, its overdue
    // timer is due before the socket is read, though the whole response is waiting in it.
    const busyAfterAnswer = await startRawServer(onRequest((s) => {
      s.write(HEAD + 'content-length: 2\r\n\r\nok');
      const until = Date.now() + 500;
      while (Date.now() < until) { /* busy */ }
    }));
    try {
      const out = await timed(`http://127.0.0.1:${busyAfterAnswer.port}/x`, { headersTimeoutMs: 200 });
      expect(out.error).toBeUndefined();
      expect(out.response!.status).toBe(200);
      expect(out.response!.body.toString()).toBe('ok');
    } finally {
      await busyAfterAnswer.close();
    }
  });
});

describe('a name that never resolves', () => {
  const hangingLookup = () => new Promise<never>(() => undefined);

  it('direct: connect timeout', async () => {
    const out = await timed(`http://stuck.example.test:${silent.port}/x`, { lookup: hangingLookup, allowPrivate: false, connectTimeoutMs: 800 });
    expect(out.error).toMatchObject({ code: 'timeout', phase: 'connect' });
    expect(out.ms).toBeLessThan(BOUND_MS);
  });

  it('through a proxy, where we resolve it only to check its address: connect timeout, nothing sent', async () => {
    const out = await timed(`http://stuck.example.test:${silent.port}/x`, { lookup: hangingLookup, allowPrivate: false, proxy: proxy.url, connectTimeoutMs: 800 });
    expect(out.error).toMatchObject({ code: 'timeout', phase: 'connect' });
    expect(out.ms).toBeLessThan(BOUND_MS);
    expect(proxy.seen.filter((u) => u.includes('stuck.example.test'))).toEqual([]);
  });
});

describe('through an HTTP proxy', () => {
  // The fetcher knows no names: the proxy does (a crawl machine without DNS behind a forward proxy).
  const viaProxy = (p: TestProxy) => ({ proxy: p.url, lookup: staticLookup({}) });

  it('a CONNECT tunnel to a silent https server: TLS timeout, within the TLS limit (undici alone waited 10 s)', async () => {
    const out = await timed(`https://far.example.test:${silent.port}/x`, { ...viaProxy(proxy), tlsTimeoutMs: 500 });
    expect(proxy.seen).toContain(`CONNECT far.example.test:${silent.port}`);
    expect(out.error).toMatchObject({ code: 'timeout', phase: 'tls' });
    expect(out.ms).toBeLessThan(BOUND_MS); // undici's own TLS timeout inside a tunnel is 10 s
  });

  it('a CONNECT tunnel to a server that answers garbage: tls error', async () => {
    const out = await timed(`https://far.example.test:${garbage.port}/x`, viaProxy(proxy));
    expect(out.error).toMatchObject({ code: 'tls' });
  });

  it('a CONNECT tunnel to a server whose certificate nobody trusts: tls error', async () => {
    const out = await timed(`https://far.example.test:${(selfSigned.address() as AddressInfo).port}/x`, viaProxy(proxy));
    expect(out.error).toMatchObject({ code: 'tls' });
    expect(out.error!.message).toMatch(/self-signed/);
  });

  it('a proxy that never answers CONNECT: connect timeout', async () => {
    const out = await timed(`https://far.example.test:${silent.port}/x`, { ...viaProxy(silentProxy), connectTimeoutMs: 800 });
    expect(out.error).toMatchObject({ code: 'timeout', phase: 'connect' });
    expect(out.ms).toBeLessThan(BOUND_MS);
  });

  it('a silent server behind the proxy (plain http): headers timeout', async () => {
    const out = await timed(`http://far.example.test:${silent.port}/x`, { ...viaProxy(proxy), headersTimeoutMs: 600 });
    expect(out.error).toMatchObject({ code: 'timeout', phase: 'headers' });
    expect(out.ms).toBeLessThan(BOUND_MS);
  });
});
