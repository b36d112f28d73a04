/**
 * `/cdx` from the store a page at a time: the same lines as the in-memory computation over the whole log
 * (`cdxLines(store.log())`, what the endpoint did before), every line exactly once when paged with limit and
 * resumeKey, and the dashboard and `/cdx` never asking the store for the whole log.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer, cdxjText, cdxLines, type CdxQuery } from '../../src/server/index.ts';
import { openStore } from '../../src/store/index.ts';
import { SqliteStore } from '../../src/store/sqlite.ts';
import type { CrawlLogEntry, MetadataStore } from '../../src/store/types.ts';
import { buildArchive, type ArchiveFixture } from './fixture.ts';
import { syntheticLog } from '../store/synthetic-log.ts';
import { tempDir } from '../helpers.ts';

const query = (q: CdxQuery & { limit?: number; showResumeKey?: boolean; resumeKey?: string; output?: string }) => '/cdx?' + new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)])).toString();

describe('/cdx over a crawled archive', () => {
  let fx: ArchiveFixture;
  let app: FastifyInstance;
  let log: CrawlLogEntry[];
  const calls: Array<{ method: string; args: unknown[] }> = [];

  beforeAll(async () => {
    fx = await buildArchive({ spacingMs: 0 });
    const store = await openStore(fx.dataDir);
    await store.init();
    log = await store.log();
    // The store the server reads through, wrapped so the test sees every call it makes (a real store, not a mock).
    const watched = new Proxy(store, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => (calls.push({ method: String(prop), args }), v.apply(target, args));
      },
    });
    app = await buildServer({ dataDir: fx.dataDir, store: watched });
    app.addHook('onClose', () => store.close());
  });
  afterAll(async () => {
    await app?.close();
    await fx?.close();
  });

  it('answers exact, prefix, host and domain matches with the lines the whole-log computation gives', async () => {
    const origin = fx.origin.url;
    const queries: CdxQuery[] = [
      { url: fx.doc }, { url: fx.doc, matchType: 'prefix' }, { url: `${origin}/`, matchType: 'host' }, { url: `${origin}/d*` },
      { url: '127.0.0.1', matchType: 'domain' }, { url: `${origin}/`, matchType: 'prefix', from: '2000', to: '2999' }, { url: `${origin}/never` },
    ];
    for (const q of queries) {
      const res = await app.inject({ url: query(q) });
      expect(res.statusCode).toBe(200);
      expect(res.body, JSON.stringify(q)).toBe(cdxjText(cdxLines(log, q)));
      expect(res.headers['x-resume-key']).toBeUndefined();
    }
    expect((await app.inject({ url: query({ url: `${origin}/`, matchType: 'host' }) })).body.trim().split('\n')).toHaveLength(7); // doc 4, other 1, gone 2
  });

  it('the dashboard and /cdx never ask the store for the whole log', async () => {
    calls.length = 0;
    for (const url of ['/', `/doc?url=${encodeURIComponent(fx.doc)}`, query({ url: fx.doc }), query({ url: `${fx.origin.url}/`, matchType: 'host', limit: 2, showResumeKey: true }), query({ url: '127.0.0.1', matchType: 'domain' })]) {
      expect((await app.inject({ url })).statusCode, url).toBe(200);
    }
    expect(calls.map((c) => c.method)).toEqual(expect.arrayContaining(['logCounts', 'logProgress', 'changeFrequencies', 'latestLog', 'captures', 'logOrigins']));
    const unlimited = calls.filter((c) => c.method === 'log' && !(c.args[0] as { limit?: number } | undefined)?.limit);
    expect(unlimited).toEqual([]);
  });
});

describe('/cdx paging over a log of a few hundred captures', () => {
  let app: FastifyInstance;
  let log: CrawlLogEntry[];

  beforeAll(async () => {
    // /cdx reads only the metadata store: a log with WARC positions is all it needs (no WARC file is opened).
    const dataDir = tempDir('dm-cdx-paging-');
    const store: MetadataStore = new SqliteStore(path.join(dataDir, 'meta.sqlite'));
    await store.init();
    for (const e of syntheticLog(300)) await store.appendLog(e);
    log = await store.log();
    await store.close();
    expect(fs.existsSync(path.join(dataDir, 'meta.sqlite'))).toBe(true);
    app = await buildServer({ dataDir });
  });
  afterAll(async () => {
    await app?.close();
  });

  /** Every line of a query, `limit` at a time, following the resume key printed after an empty line. */
  async function pages(q: CdxQuery, limit: number): Promise<{ text: string; pages: number }> {
    let text = '';
    let key: string | undefined;
    for (let n = 1; ; n++) {
      const res = await app.inject({ url: query({ ...q, limit, showResumeKey: true, ...(key ? { resumeKey: key } : {}) }) });
      expect(res.statusCode).toBe(200);
      const [lines, resume] = res.body.split('\n\n');
      text += lines!.endsWith('\n') || lines === '' ? lines : lines + '\n';
      key = resume?.trim();
      expect(res.headers['x-resume-key']).toBe(key);
      if (!key) return { text, pages: n };
      expect(lines!.split('\n').filter(Boolean).length).toBeLessThanOrEqual(limit);
    }
  }

  it('pages with limit and resumeKey give every line exactly once, in the order of the whole answer', async () => {
    const queries: CdxQuery[] = [
      { url: 'http://a.example/data/amy' }, { url: 'http://a.example/data/', matchType: 'prefix' }, { url: 'http://a.example/', matchType: 'host' },
      { url: 'a.example', matchType: 'domain' }, { url: 'http://b.example/', matchType: 'host', from: '202501', to: '20250115' },
    ];
    for (const q of queries) {
      const whole = cdxjText(cdxLines(log, q));
      expect(whole.length, JSON.stringify(q)).toBeGreaterThan(0);
      expect((await app.inject({ url: query(q) })).body, JSON.stringify(q)).toBe(whole);
      const paged = await pages(q, 7);
      expect(paged.text, JSON.stringify(q)).toBe(whole);
      // A resume key only while more lines follow: no empty last page.
      expect(paged.pages).toBe(Math.ceil(whole.trim().split('\n').length / 7));
    }
  });

  it('limit defaults to 10,000; a page that stops short says so in X-Resume-Key and, when asked, in the body', async () => {
    const host = { url: 'http://a.example/', matchType: 'host' as const };
    const all = cdxLines(log, host);
    const first = await app.inject({ url: query({ ...host, limit: 5 }) });
    expect(first.body).toBe(cdxjText(all.slice(0, 5)));
    expect(first.headers['x-resume-key']).toMatch(/^[A-Za-z0-9_-]+$/);
    const next = await app.inject({ url: query({ ...host, limit: 5, resumeKey: first.headers['x-resume-key'] as string, output: 'json' }) });
    expect(next.body.trim().split('\n').map((l) => JSON.parse(l).timestamp)).toEqual(all.slice(5, 10).map((l) => l.timestamp));
    const json = await app.inject({ url: query({ ...host, limit: 5, showResumeKey: true, output: 'json' }) });
    expect(JSON.parse(json.body.trim().split('\n').at(-1)!)).toEqual({ resumeKey: first.headers['x-resume-key'] });
    expect((await app.inject({ url: query({ ...host, resumeKey: 'nonsense' }) })).statusCode).toBe(400);
    expect((await app.inject({ url: query({ ...host, limit: 1.5 }) })).statusCode).toBe(400);
  });
});
