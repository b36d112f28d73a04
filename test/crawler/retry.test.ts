/**
 * Transient network failures (a reset, a connection closed mid-exchange, a refusal, a timeout) are
 * tried again within the crawl like a 5xx, after the origin's back-off, at most maxRetries times;
 * failures another try would meet again (404, a refused address, a TLS handshake) are not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { DEFAULTS, type CrawlOptions } from '../../src/crawler/options.ts';
import { answer, startRawHttp, startTlsGarbage, type FaultServer } from '../../src/testkit/faults/raw.ts';
import { closedPort } from '../../src/testkit/server.ts';
import { crawlLog, documents, tempDir } from '../helpers.ts';

const TRIES = DEFAULTS.maxRetries + 1;

/** Small back-offs so the tries follow each other quickly; every other politeness rule as a user has it. */
const options = (seeds: string[], more: Partial<CrawlOptions> = {}): CrawlOptions => ({
  seeds, dataDir: tempDir('dm-retry-'), delayMs: 0, backoffBaseMs: 50, allowPrivate: true, robots: false, vocabularies: false, depth: 0, timeoutMs: 1_000, ...more,
});

type Row = { url: string; status: number; reason: string; error: string | null };
const rowsOf = (dataDir: string, url: string) => (crawlLog(dataDir) as Row[]).filter((r) => r.url === url);
const stateOf = (dataDir: string, url: string) => (documents(dataDir) as Array<{ url: string; state: string }>).find((d) => d.url === url)?.state;

const doc = (path: string) => `<urn:x:doc> <urn:x:path> "${path}" .\n`;

describe('transient network failures', () => {
  const servers: FaultServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  /** A server that fails the first `fail[path]` requests to a path with `how`, then answers with Turtle. */
  async function failingFirst(fail: Record<string, number>, how: (socket: import('node:net').Socket) => void): Promise<FaultServer> {
    const s = await startRawHttp((req, socket) => {
      if ((s.hits.get(req.path) ?? 0) <= (fail[req.path] ?? 0)) return how(socket);
      answer(socket, 200, doc(req.path), { 'Content-Type': 'text/turtle' });
    });
    servers.push(s);
    return s;
  }

  it('captures a document whose first connections were reset or closed mid-exchange, logging each failed try', async () => {
    const s = await failingFirst({ '/reset-once': 1, '/reset-twice': 2 }, (socket) => socket.resetAndDestroy());
    const closing = await failingFirst({ '/closed': 2 }, (socket) => socket.destroy());
    const urls = [`${s.url}/reset-once`, `${s.url}/reset-twice`, `${closing.url}/closed`];
    const o = options(urls);
    const summary = await crawl(o).run();
    expect(summary.documents).toBe(3);
    expect(summary.errors).toBe(0);
    expect(s.hits.get('/reset-once')).toBe(2);
    expect(s.hits.get('/reset-twice')).toBe(3);
    expect(closing.hits.get('/closed')).toBe(3);
    for (const url of urls) expect(stateOf(o.dataDir, url)).toBe('fetched');
    const twice = rowsOf(o.dataDir, `${s.url}/reset-twice`);
    expect(twice.map((r) => r.reason)).toEqual(['connection-reset', 'connection-reset', 'fetched']);
    expect(twice[0].error).toMatch(new RegExp(`try 1 of ${TRIES}: tried again after the origin's`));
    expect(twice[1].error).toMatch(new RegExp(`try 2 of ${TRIES}`));
    expect(rowsOf(o.dataDir, `${closing.url}/closed`).map((r) => r.reason)).toEqual(['connection-reset', 'connection-reset', 'fetched']);
  }, 60_000);

  it('tries again a request whose headers never came in time, and captures the answer that finally came', async () => {
    const s = await failingFirst({ '/slow': 1 }, () => undefined);
    const o = options([`${s.url}/slow`], { timeoutMs: 500 });
    const summary = await crawl(o).run();
    expect(summary.documents).toBe(1);
    expect(rowsOf(o.dataDir, `${s.url}/slow`).map((r) => r.reason)).toEqual(['timeout-headers', 'fetched']);
  }, 60_000);

  it(`gives a URL whose every connection is reset up after ${TRIES} tries, with its reason`, async () => {
    const s = await failingFirst({ '/always': Infinity }, (socket) => socket.resetAndDestroy());
    const url = `${s.url}/always`;
    const o = options([url]);
    const summary = await crawl(o).run();
    expect(summary.stoppedBy).toBeUndefined();
    expect(s.hits.get('/always')).toBe(TRIES);
    const rows = rowsOf(o.dataDir, url);
    expect(rows.map((r) => r.reason)).toEqual(Array(TRIES).fill('connection-reset'));
    expect(rows.at(-1)!.error).toMatch(new RegExp(`try ${TRIES} of ${TRIES}\\)$`));
    expect(stateOf(o.dataDir, url)).toBe('failed');
    expect(summary.errors).toBe(1);
  }, 60_000);

  it(`gives a URL whose port refuses every connection up after ${TRIES} tries`, async () => {
    const url = `http://127.0.0.1:${await closedPort()}/doc`;
    const o = options([url]);
    await crawl(o).run();
    const rows = rowsOf(o.dataDir, url);
    expect(rows.map((r) => r.reason)).toEqual(Array(TRIES).fill('connect-refused'));
    expect(stateOf(o.dataDir, url)).toBe('failed');
  }, 60_000);

  it('does not wait out a back-off longer than the cap: a URL of an origin with a long delay fails at once', async () => {
    const s = await failingFirst({ '/always': Infinity }, (socket) => socket.resetAndDestroy());
    const url = `${s.url}/always`;
    // The back-off before a retry is max(delay, base): past DEFAULTS.maxRetryBackoffMs the crawl would sit idle.
    const o = options([url], { delayMs: DEFAULTS.maxRetryBackoffMs + 1_000 });
    await crawl(o).run();
    expect(s.hits.get('/always')).toBe(1);
    const rows = rowsOf(o.dataDir, url);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ reason: 'connection-reset' });
    expect(rows[0].error).toMatch(/not tried again: the origin's back-off would be 2 min 1 s/);
  }, 60_000);

  it('logs each try a 5xx or a Retry-After sent back, with its status, and then the capture', async () => {
    const s = await startRawHttp((req, socket) => {
      const n = s.hits.get(req.path) ?? 0;
      if (req.path === '/busy' && n === 1) return answer(socket, 503, 'busy');
      if (req.path === '/busy' && n === 2) return answer(socket, 500, 'oops');
      if (req.path === '/limited' && n === 1) return answer(socket, 429, '', { 'Retry-After': '1' });
      answer(socket, 200, doc(req.path), { 'Content-Type': 'text/turtle' });
    });
    servers.push(s);
    const o = options([`${s.url}/busy`, `${s.url}/limited`]);
    const summary = await crawl(o).run();
    expect(summary.documents).toBe(2);
    const busy = rowsOf(o.dataDir, `${s.url}/busy`);
    expect(busy.map((r) => [r.status, r.reason])).toEqual([[503, 'rate-limited'], [500, 'server-error'], [200, 'fetched']]);
    expect(busy[0].error).toMatch(new RegExp(`^HTTP 503 \\(try 1 of ${TRIES}: tried again after the origin's (\\d+ ms|[\\d.]+ s) back-off\\)$`));
    expect(busy[1].error).toMatch(new RegExp(`^HTTP 500 \\(try 2 of ${TRIES}`));
    const limited = rowsOf(o.dataDir, `${s.url}/limited`);
    expect(limited.map((r) => [r.status, r.reason])).toEqual([[429, 'rate-limited'], [200, 'fetched']]);
    expect(limited[0].error).toMatch(/^HTTP 429 \(try 1 of \d: tried again after its Retry-After, \d{4}-\d\d-\d\dT/);
    expect(stateOf(o.dataDir, `${s.url}/busy`)).toBe('fetched');
  }, 60_000);

  it('does not try again a 404, a refused address or a failed TLS handshake', async () => {
    const s = await startRawHttp((_req, socket) => answer(socket, 404, 'gone'));
    servers.push(s);
    const tls = await startTlsGarbage();
    servers.push(tls);
    const o = options([`${s.url}/missing`, `${tls.url}/x`]);
    await crawl(o).run();
    expect(s.hits.get('/missing')).toBe(1);
    expect(tls.hits.get('connection')).toBe(1);
    expect(rowsOf(o.dataDir, `${s.url}/missing`).map((r) => r.reason)).toEqual(['http-error']);
    expect(rowsOf(o.dataDir, `${tls.url}/x`).map((r) => r.reason)).toEqual(['tls-error']);

    const blocked = options([`${s.url}/private`], { allowPrivate: false });
    await crawl(blocked).run();
    expect(s.hits.get('/private')).toBeUndefined();
    expect(rowsOf(blocked.dataDir, `${s.url}/private`).map((r) => r.reason)).toEqual(['refused-address']);
  }, 60_000);
});
