import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { startServer } from '../../src/testkit/server.ts';
import { cli, tempDir } from '../helpers.ts';

const run = cli;

describe('a config file for the settings a site uses every time', () => {
  it('gives the crawl its contact, politeness and data directory; flags on the command line win', async () => {
    const site = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/turtle' });
      res.end('<http://example.org/a> <http://example.org/p> "x" .\n');
    });
    try {
      const cwd = tempDir();
      const archive = path.join(cwd, 'from-config');
      fs.writeFileSync(path.join(cwd, 'datamonitor.json'), JSON.stringify({
        data: archive, contact: 'mailto:archive@example.org', robots: false, delay: '0', 'allow-private': true,
        commands: { crawl: { depth: 0 } },
      }));
      const r = await run(['crawl', `${site.url}/a`, '--json'], { cwd });
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out).dataDir).toBe(archive);
      expect(site.requests.map((q) => q.path)).toEqual(['/a']); // robots: false, depth 0
      expect(site.requests[0].headers['user-agent']).toMatch(/mailto:archive@example\.org/);
      // A flag beats the file.
      const other = path.join(cwd, 'from-flag');
      const r2 = await run(['crawl', `${site.url}/a`, '--json', '--data', other, '--user-agent', 'flag-wins/1'], { cwd });
      expect(JSON.parse(r2.out).dataDir).toBe(other);
      expect(site.requests.at(-1)!.headers['user-agent']).toBe('flag-wins/1');
    } finally {
      await site.close();
    }
  }, 120_000);

  it('names a wrong setting and the file, with the data-error status (65)', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'site.json');
    fs.writeFileSync(file, JSON.stringify({ 'per-hots': 2 }));
    const store = await openStore(dir);
    await store.init();
    await store.close();
    const r = await run(['stats', '--data', dir], { env: { DATAMONITOR_CONFIG: file } });
    expect(r.code).toBe(65);
    expect(r.err).toContain(`config file '${file}': unknown setting "per-hots"`);
  }, 60_000);
});
