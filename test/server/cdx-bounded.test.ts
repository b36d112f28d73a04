import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withStore, openStore } from '../../src/store/index.ts';
import type { MetadataStore } from '../../src/store/types.ts';
import { cdxLines } from '../../src/server/cdx.ts';
import { registerCdxRoute } from '../../src/server/cdx-route.ts';
import { CDX_CHUNK } from '../../src/server/cdx-query.ts';
import { buildScaleArchive, type ScaleArchive } from '../../src/testkit/scale-archive.ts';
import { repoRoot, tempDir } from '../helpers.ts';

/**
 * Issue 16 item 6: `/cdx` held a page's log entries and then its whole response text, so a server's memory
 * grew with the page asked for (up to 100,000 lines) and the CDX and dashboard reads grew 2.05x in RSS from
 * 10,000 to 100,000 documents (bench/SCALE.md). Now a page goes out a chunk of CDX_CHUNK lines at a time. Here
 * the route runs on a real 127.0.0.1 server in a process whose heap is capped at 32 MB, over an archive of
 * 10,000 documents of the generated Linked Data Web (21,100 captures), asked for all of them in one page.
 * The cap sits between the two routes, measured from the run's bundle on this archive: the old route died of
 * "heap out of memory" under 40 MB and lived under 44; the streaming route keeps 16.6 MB live after a full GC
 * and, under a 24 MB cap, died in one run of three (a cap that tight tested the GC's pace on a busy machine,
 * not the route: CI failed there once).
 */
const DOCUMENTS = 10_000;
const HEAP_MB = 32;

/**
 * The probe in a process of its own under the heap cap: from the run's bundle of it (test/setup/bundle-sources.ts)
 * when there is one, so that the cap holds the route and not tsx transforming the sources (which alone took a
 * 24 MB heap to its limit on a machine with a cold tsx cache); through tsx otherwise.
 */
function probeCommand(dir: string, limit: number): string[] {
  const bundle = process.env.DATAMONITOR_SRC_BUNDLES && path.join(process.env.DATAMONITOR_SRC_BUNDLES, 'server/cdx-probe.mjs');
  if (!bundle || !fs.existsSync(bundle)) return [path.join(repoRoot, 'bin/run-ts.mjs'), path.join(repoRoot, 'src/server/cdx-probe.ts'), dir, String(limit)];
  const script = `const { cdxProbe } = await import(${JSON.stringify(pathToFileURL(bundle).href)}); process.stdout.write(JSON.stringify(await cdxProbe(${JSON.stringify(dir)}, ${limit})) + '\\n');`;
  return ['--input-type=module', '-e', script];
}

function child(dir: string, limit: number): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, probeCommand(dir, limit), {
      env: { ...process.env, NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` },
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
    p.on('exit', (code) => resolve({ code, out, err }));
  });
}

describe('/cdx streams a page of any size in bounded memory', () => {
  const dir = tempDir();
  let archive: ScaleArchive;
  let store: MetadataStore;
  let app: FastifyInstance;
  beforeAll(async () => {
    archive = await buildScaleArchive({ dataDir: dir, documents: DOCUMENTS });
    store = await openStore(dir, undefined, { readonly: true });
    await store.init();
    app = Fastify();
    registerCdxRoute(app, { store, publicUrl: () => 'http://127.0.0.1' } as unknown as Parameters<typeof registerCdxRoute>[1]);
  }, 900_000);
  afterAll(async () => {
    await app?.close();
    await store?.close();
  });

  it(`answers a domain query for every capture in one page with a ${HEAP_MB} MB heap, and the dashboard's reads after it`, async () => {
    const r = await child(dir, 100_000);
    expect(r.err).not.toMatch(/heap out of memory/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out.trim().split('\n').at(-1)!)).toEqual({ status: 200, lines: archive.entries, pages: 1, resumeKey: null, entries: archive.entries });
  }, 600_000);

  it('pages longer than a chunk give the lines of the whole answer, once each and in its order, and the same resume keys', async () => {
    const all = await withStore(dir, undefined, (s) => s.log({ limit: 1_000_000 }), { readonly: true });
    const q = { url: 'lod.test', matchType: 'domain' as const };
    const expected = cdxLines(all, q).map((l) => JSON.stringify(l));
    expect(expected.length).toBe(archive.entries);
    // Not a multiple of CDX_CHUNK, so pages end inside a chunk and inside a host.
    const limit = Math.round(CDX_CHUNK * 2.7);
    const got: string[] = [];
    let key: string | undefined;
    let pages = 0;
    do {
      const res = await app.inject({ url: `/cdx?${new URLSearchParams({ ...q, output: 'json', limit: String(limit), showResumeKey: 'true', ...(key ? { resumeKey: key } : {}) })}` });
      expect(res.statusCode).toBe(200);
      const body = res.body.trim().split('\n').filter(Boolean);
      const next = res.headers['x-resume-key'] as string | undefined;
      // The resume key goes out as a header before the body, and again at its end when asked for.
      if (next) expect(JSON.parse(body.pop()!)).toEqual({ resumeKey: next });
      expect(body.length).toBe(next ? limit : expected.length - got.length);
      got.push(...body.map((l) => JSON.stringify(JSON.parse(l))));
      key = next;
      pages++;
    } while (key);
    expect(pages).toBe(Math.ceil(expected.length / limit));
    expect(got).toEqual(expected);
  }, 600_000);

  it('streams the link format with one separator between chunks', async () => {
    const res = await app.inject({ url: `/cdx?url=lod.test&matchType=domain&output=link&limit=${CDX_CHUNK * 2 + 5}` });
    expect(res.statusCode).toBe(200);
    const links = res.body.split(',\n');
    expect(links).toHaveLength(CDX_CHUNK * 2 + 5);
    for (const l of links) expect(l.trim()).toMatch(/^<http:\/\/127\.0\.0\.1\/memento\/\d{14}\/http:\/\/data\d\.lod\.test\/(id|doc)\/\d+>; rel="memento"; datetime="[^"]+"$/);
    expect(res.body.endsWith('\n')).toBe(true);
  }, 600_000);
});
