/**
 * Frontier ordering cost in a 20,000-page crawl (issue 5: BFS must not be slowed measurably; a
 * PageRank refresh must not block the event loop for long). The crawl is replayed over a generated
 * link graph (50 hosts, 10 links a page, popularity skewed towards a few pages per host), so only
 * the frontier and the ordering policy are measured. Peer: a plain FIFO array + Set, the cheapest
 * BFS frontier there is, run in the same process.
 *
 *   node bin/run-ts.mjs bench/ordering.bench.ts [pages]
 */
import { performance } from 'node:perf_hooks';
import { createOrderingPolicy, pageRank, pageRankSteps, type PageRankPolicy, PriorityFrontier, type CrawledPage, type OrderingName } from '../src/frontier/order/index.ts';

// `--quick` (from npm run bench -- --quick) means a smaller crawl; a bare number sets the page count.
const PAGES = process.argv.includes('--quick') ? 2_000 : Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 20_000);
const UNIVERSE = PAGES * 2;
const HOSTS = 50;
const LINKS = 10;

function urlOf(i: number): string {
  return `http://h${i % HOSTS}.test/p${i}`;
}

/** Deterministic links of page i: mostly to popular pages of the same host, some across hosts. */
function pageOf(i: number): CrawledPage {
  let s = (i * 2654435761) >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296);
  const links = [];
  const perHost = UNIVERSE / HOSTS;
  for (let k = 0; k < LINKS; k++) {
    const host = k < 8 ? i % HOSTS : Math.floor(rnd() * HOSTS);
    const slot = Math.floor(perHost * rnd() * rnd());
    links.push({ url: urlOf(slot * HOSTS + host), anchorText: `page ${slot} topic${slot % 7}` });
  }
  return { url: urlOf(i), links, text: `page ${i} about topic${i % 7}` };
}

const pageCache = new Map<string, CrawledPage>();
function fetchPage(url: string): CrawledPage {
  let p = pageCache.get(url);
  if (!p) pageCache.set(url, (p = pageOf(Number(url.slice(url.lastIndexOf('p') + 1)))));
  return p;
}

const turn = () => new Promise((r) => setImmediate(r));

async function fifoCrawl(): Promise<number> {
  const t = performance.now();
  const queue: string[] = [urlOf(0)];
  const seen = new Set(queue);
  let head = 0;
  for (let n = 0; n < PAGES && head < queue.length; n++) {
    const page = fetchPage(queue[head++]);
    for (const l of page.links) if (!seen.has(l.url)) (seen.add(l.url), queue.push(l.url));
    await turn();
  }
  return performance.now() - t;
}

interface CrawlRun {
  ms: number;
  /** Longest synchronous stretch for one page (pop, policy update, adds; inline refreshes land here). */
  maxPageMs: number;
  policy: ReturnType<typeof createOrderingPolicy>;
}

async function orderedCrawl(name: OrderingName, background: boolean): Promise<CrawlRun> {
  const policy = createOrderingPolicy(name, { query: 'topic3', background });
  const frontier = new PriorityFrontier(policy);
  const seen = new Set<string>([urlOf(0)]);
  frontier.add(urlOf(0));
  let maxPageMs = 0;
  const t = performance.now();
  // After each page the crawl yields, as a crawler awaiting fetches would: a refresh running in
  // the background gets its turns there.
  for (let n = 0; n < PAGES; n++) {
    const t0 = performance.now();
    const url = frontier.pop();
    if (url === undefined) break;
    const page = fetchPage(url);
    policy.onPageCrawled(page);
    for (const l of page.links) if (!seen.has(l.url)) (seen.add(l.url), frontier.add(l.url));
    maxPageMs = Math.max(maxPageMs, performance.now() - t0);
    await turn();
  }
  await policy.idle?.();
  return { ms: performance.now() - t, maxPageMs, policy };
}

for (let i = 0; i < PAGES; i++) fetchPage(urlOf(i)); // build the graph outside the timings
await fifoCrawl(); // warm up
const fifo = Math.min(await fifoCrawl(), await fifoCrawl(), await fifoCrawl());
const rows: string[] = [];
for (const name of ['bfs', 'random', 'location', 'backlink', 'similarity', 'pagerank'] as const) {
  await orderedCrawl(name, true); // warm up
  const runs = [await orderedCrawl(name, true), await orderedCrawl(name, true)];
  const best = runs.reduce((a, b) => (a.ms < b.ms ? a : b));
  rows.push(`| ${name} | ${best.ms.toFixed(0)} | ${(best.ms / fifo).toFixed(1)}× | ${((best.ms * 1000) / PAGES).toFixed(1)} | ${best.maxPageMs.toFixed(1)} |`);
}
const inline = await orderedCrawl('pagerank', false);
rows.push(`| pagerank, refresh inline (not sliced) | ${inline.ms.toFixed(0)} | ${(inline.ms / fifo).toFixed(1)}× | ${((inline.ms * 1000) / PAGES).toFixed(1)} | ${inline.maxPageMs.toFixed(1)} |`);

// One PageRank refresh of the final crawled graph: all at once against the longest slice.
const graph = (inline.policy as PageRankPolicy).graph;
let t0 = performance.now();
const csr = graph.toCsr();
const csrMs = performance.now() - t0;
t0 = performance.now();
const full = pageRank(csr, { tolerance: 1e-8 });
const fullMs = performance.now() - t0;
let longestSlice = 0;
const steps = pageRankSteps(csr, { tolerance: 1e-8 });
for (;;) {
  t0 = performance.now();
  const r = steps.next();
  longestSlice = Math.max(longestSlice, performance.now() - t0);
  if (r.done) break;
}

console.log(`## Frontier ordering: a ${PAGES.toLocaleString('en')}-page crawl (${HOSTS} hosts, ${LINKS} links a page)

Peer: a FIFO array + Set (BFS, no ordering): ${fifo.toFixed(1)} ms for the whole crawl (${((fifo * 1000) / PAGES).toFixed(2)} µs a page).
Pages are generated in memory (no fetching) and the crawl gives the event loop a turn after each
page, as a crawler awaiting fetches does. The last column is the longest synchronous stretch spent
on one page (a global re-prioritisation of the frontier, or an inline PageRank refresh, lands there).

| ordering | crawl ms | vs FIFO peer | µs a page | longest page, ms |
| --- | ---: | ---: | ---: | ---: |
${rows.join('\n')}

PageRank refresh of the final crawled graph (${graph.nodeCount.toLocaleString('en')} URLs, ${graph.edgeCount.toLocaleString('en')} links): CSR snapshot
${csrMs.toFixed(1)} ms; power iteration from a uniform start ${fullMs.toFixed(1)} ms in one go (${full.iterations} iterations),
against ${longestSlice.toFixed(2)} ms for its longest slice when run in event-loop slices
(${(fullMs / longestSlice).toFixed(0)}× shorter block).
`);
