import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { startWebOfData, type WebOfData } from '../../src/testkit/web-of-data.ts';
import { loadArchiveGraph } from '../../src/lab/ordering/archive-graph.ts';
import { repoRoot, tempDir } from '../helpers.ts';

describe('the archive as a repository for the ordering lab', () => {
  let web: WebOfData;
  const dataDir = tempDir();
  beforeAll(async () => {
    web = await startWebOfData();
    await crawl({ seeds: [web.seed], dataDir, depth: 4, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'] }).run();
  });
  afterAll(() => web.close());

  it('reads every archived page with the links extracted from its archived bytes', async () => {
    const g = await loadArchiveGraph(dataDir);
    expect(g.start).toBe(web.seed);
    const home = g.pages.find((p) => p.url === web.seed)!;
    expect(home.links.map((l) => l.url)).toContain(`${web.url}/id/alice`);
    expect(home.links.find((l) => l.url === `${web.url}/id/alice`)?.anchorText).toBe('alice');
    const alice = g.pages.find((p) => p.url === `${web.url}/people/alice`)!;
    expect(alice.links.map((l) => l.url)).toContain(`${web.url}/people/bob`);
  });

  it('runs `lab ordering --data` on it', () => {
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'lab', 'ordering', '--data', dataDir, '--hot', 'backlink', '--top', '3', '--json'], { encoding: 'utf8' });
    expect(r.stderr).not.toMatch(/not yet available/);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(JSON.stringify(out)).toMatch(/pagerank/);
  });
});
