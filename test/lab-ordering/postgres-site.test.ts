import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { loadSiteGraph } from '../../src/lab/ordering/site-loader.ts';
import { runOrderingLab } from '../../src/lab/ordering/run.ts';
import { postgresqlDocsMissing, unpackPostgresqlDocs } from '../../src/testkit/postgresql-docs.ts';

const missing = postgresqlDocsMissing();
if (missing) console.warn(`\n!!! SKIPPING the PostgreSQL-site ordering test: ${missing}\n`);

describe.skipIf(missing !== undefined)('ordering lab on the real PostgreSQL 15 documentation', () => {
  let docs: ReturnType<typeof unpackPostgresqlDocs> | undefined;
  beforeAll(() => {
    docs = unpackPostgresqlDocs();
  });
  afterAll(() => docs?.remove());

  it('loads the 1,169 pages and 10,779 links, and PageRank ordering finds backlink-hot pages before random', async () => {
    const g = await loadSiteGraph(docs!.root, { base: 'http://pg.local/' });
    const r = runOrderingLab(g, { hot: 'backlink', orderings: ['pagerank', 'random'] });
    expect(r.repository).toMatchObject({ pages: 1169, links: 10779, start: 'http://pg.local/index.html' });
    const [pagerank, random] = r.orderings;
    expect(pagerank.crawledFor!['0.5']!).toBeLessThan(random.crawledFor!['0.5']!);
    expect(pagerank.auc).toBeGreaterThan(random.auc);
  });
});
