import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeBanner } from '../../src/crawler/banner.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { repoRoot, tempDir } from '../helpers.ts';

describe('the start banner', () => {
  it("says the crawl's scope and politeness", () => {
    const text = scopeBanner({ seeds: ['http://a.test/'], dataDir: '/tmp/x', depth: 2, domains: ['a.test'], include: ['^http://a\\.test/'], exclude: ['\\.pdf$'], delayMs: 2000, perHost: 2, robots: false });
    expect(text).toMatch(/^crawl scope: depth 2 \(vocabularies at any depth\); domains a\.test; include \^http:\/\/a\\\.test\/; exclude \\\.pdf\$\n/);
    expect(text).toMatch(/politeness: robots\.txt ignored \(--no-robots\); delay 2(\.0)? ?s per host, 2 per host at once, 16 in all; private addresses refused/);
    expect(text).not.toMatch(/warning/);
  });

  it('names each seed a filter excludes, and the filter', () => {
    const text = scopeBanner({ seeds: ['http://other.test/x', 'http://a.test/y.pdf', 'http://a.test/ok', 'http://b.a.test/z'], dataDir: '/tmp/x', domains: ['a.test'], exclude: ['\\.pdf$'] });
    expect(text.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([
      'warning: --domain a.test excludes the seed http://other.test/x: it will not be crawled',
      'warning: --exclude \\.pdf$ excludes the seed http://a.test/y.pdf: it will not be crawled',
    ]);
    expect(scopeBanner({ seeds: ['http://a.test/'], dataDir: '/tmp/x', include: ['/docs/'] })).toMatch(/warning: no --include pattern \(\/docs\/\) matches the seed http:\/\/a\.test\//);
  });

  describe('on the command line', () => {
    let site: TestServer;
    beforeAll(async () => (site = await startServer((_req, res) => res.writeHead(404).end())));
    afterAll(() => site.close());

    it('goes to stderr, so that --json output stays one JSON document', async () => {
      const r = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const p = spawn(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'crawl', `${site.url}/`, '--data', tempDir(), '--domain', 'example.org', '--allow-private', '--json']);
        let out = '';
        let err = '';
        p.stdout.on('data', (d) => (out += d));
        p.stderr.on('data', (d) => (err += d));
        p.on('exit', (code) => resolve({ code, out, err }));
      });
      expect(r.err).toContain(`warning: --domain example.org excludes the seed ${site.url}/: it will not be crawled`);
      expect(JSON.parse(r.out)).toMatchObject({ documents: 0, skipped: { filtered: 1 }, reasons: { 'filtered-domain': 1 } });
      expect(site.requests).toHaveLength(0);
    }, 60_000);
  });
});
