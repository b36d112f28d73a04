import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSiteGraph } from '../../src/lab/ordering/site-loader.ts';
import { runOrderingLab } from '../../src/lab/ordering/run.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const deb = path.join(path.resolve(repoRoot, '../shared/data'), 'sites/postgresql-doc-15_15.20-0+deb12u1_all.deb');
const hasDpkg = (() => {
  try {
    execFileSync('dpkg-deb', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const available = existsSync(deb) && hasDpkg;
if (!available) console.warn(`\n!!! SKIPPING the PostgreSQL-site ordering test: needs ${deb} and dpkg-deb\n`);

describe.skipIf(!available)('ordering lab on the real PostgreSQL 15 documentation', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'dm-pgdoc-'));
    execFileSync('dpkg-deb', ['-x', deb, dir]);
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('loads the 1,169 pages and 10,779 links, and PageRank ordering finds backlink-hot pages before random', async () => {
    const g = await loadSiteGraph(path.join(dir, 'usr/share/doc/postgresql-doc-15/html'), { base: 'http://pg.local/' });
    const r = runOrderingLab(g, { hot: 'backlink', orderings: ['pagerank', 'random'] });
    expect(r.repository).toMatchObject({ pages: 1169, links: 10779, start: 'http://pg.local/index.html' });
    const [pagerank, random] = r.orderings;
    expect(pagerank.crawledFor!['0.5']!).toBeLessThan(random.crawledFor!['0.5']!);
    expect(pagerank.auc).toBeGreaterThan(random.auc);
  });
});
