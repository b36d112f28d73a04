/**
 * The ordering lab: for one importance metric and hot-page rule, one virtual crawl per ordering
 * metric, scored by how early the hot pages are found (seed 001's experiments), as numbers, JSON
 * and a plot.
 */
import { OptionError, UserError } from '../../util/errors.ts';
import { createOrderingPolicy } from '../../frontier/order/policies.ts';
import { ORDERING_NAMES, type OrderingName } from '../../frontier/order/policy.ts';
import { indexRepository, type RepositoryGraph } from './graph.ts';
import { crawlAndStopCurve, hotPages, importanceOf, type HotRule, type ImportanceName } from './importance.ts';
import { lineChart, toSvg } from '../../plot/svg.ts';
import { virtualCrawl } from './virtual-crawl.ts';

/**
 * crawl-and-stop (P_CS), threshold (share of the hot pages found), buffer (seed 001's limited buffer:
 * the crawler keeps B pages, flushing the one it estimates least important; P_BC = hot share of the
 * B kept), frontier (the lab's older variant: B URLs in the frontier, the lowest-priority forgotten).
 */
export const MODEL_NAMES = ['crawl-and-stop', 'threshold', 'buffer', 'frontier'] as const;
export type ModelName = (typeof MODEL_NAMES)[number];

export interface OrderingLabOptions {
  /** What makes a page hot: its importance under this metric (backlink by default). */
  hot?: ImportanceName;
  query?: string;
  /** Top K or threshold G; the top 10 % of pages by default. */
  rule?: HotRule;
  model?: ModelName;
  /** Pages kept (buffer model) or URLs in the frontier (frontier model); 10 % of the pages by default. */
  buffer?: number;
  orderings?: readonly OrderingName[];
  seed?: number;
  /** Points per curve in the result. */
  points?: number;
}

export interface OrderingRun {
  ordering: OrderingName;
  /** Pages crawled (fewer than the repository when the buffer forgot some, or some are unreachable). */
  crawled: number;
  dropped: number;
  /** Mean of the curve over the whole crawl: 1 is perfect, about 0.5 for random under the threshold model. */
  auc: number;
  /** The curve's value after crawling 10 %, 25 %, 50 % of the pages. */
  at: Record<'0.1' | '0.25' | '0.5', number>;
  /** Fraction of the pages crawled when half, and 90 %, of the hot pages were found (threshold, buffer); null if never. */
  crawledFor?: Record<'0.5' | '0.9', number | null>;
  /** P_CS at the given K (crawl-and-stop with --top K). */
  pcs?: number;
  /** P_BC when the crawl ends: the share of the B pages kept that are hot (buffer model). */
  pbc?: number;
  /** [fraction of pages crawled, fraction of hot pages found (or P_CS)]. */
  curve: [number, number][];
}

export interface OrderingLabResult {
  repository: { pages: number; links: number; externalLinks: number; start: string };
  hot: { metric: ImportanceName; query?: string; rule: HotRule; threshold: number; count: number };
  model: ModelName;
  buffer?: number;
  orderings: OrderingRun[];
  /** Orderings left out, and why. */
  skipped: { ordering: OrderingName; reason: string }[];
}

const round = (v: number) => Math.round(v * 10000) / 10000;

const EARLINESS = Symbol('earliness');

/**
 * Threshold model: per hot page (in page order, the same for every ordering of one run), the share of
 * the crawl still to come when it was found, (n − position + 1) / n, 0 if never. The curve mean is
 * their mean, so two orderings' difference is a mean over hot pages, which the report bootstraps.
 * Kept under a symbol: not part of any JSON output.
 */
export function hotEarliness(run: OrderingRun): Float64Array | undefined {
  return (run as OrderingRun & { [EARLINESS]?: Float64Array })[EARLINESS];
}

export function runOrderingLab(graph: RepositoryGraph, options: OrderingLabOptions = {}): OrderingLabResult {
  const repo = indexRepository(graph);
  const n = repo.pages.length;
  const metric = options.hot ?? 'backlink';
  const model = options.model ?? 'threshold';
  const points = options.points ?? 100;
  let buffer: number | undefined;
  if (model === 'buffer' || model === 'frontier') {
    buffer = options.buffer ?? Math.max(1, Math.round(n / 10));
    if (!Number.isInteger(buffer) || buffer < 1) throw new OptionError('buffer', `must be a positive whole number of ${model === 'buffer' ? 'pages' : 'URLs'}`);
  }
  // The seed's hot pages: keyword-hot is a yes/no rule; in the buffer model the top B (I(p) ≥ I(r_B)).
  const rule = options.rule ?? (metric === 'keyword' ? { threshold: 1 } : { top: model === 'buffer' ? buffer! : Math.max(1, Math.round(n / 10)) });
  const importance = importanceOf(repo, metric, options.query);
  const hot = hotPages(importance, rule);
  if (hot.count === 0) throw new UserError(`no page is hot under ${metric} ≥ ${hot.threshold}: lower --threshold`);

  const skipped: OrderingLabResult['skipped'] = [];
  const runs: OrderingRun[] = [];
  // Global refreshes (PageRank, IDF) about every 1 % of the repository, as a crawler would re-rank.
  const refreshEvery = Math.max(1, Math.round(n / 100));
  for (const ordering of options.orderings ?? ORDERING_NAMES) {
    if (ordering === 'similarity' && !options.query?.trim()) {
      skipped.push({ ordering, reason: 'no --query' });
      continue;
    }
    const policy = createOrderingPolicy(ordering, { query: options.query, seed: options.seed, refreshEvery, refreshGrowth: 0 });
    const kept = model === 'buffer' ? new PageBuffer(buffer!, hot.hot, (i) => policy.priority(repo.pages[i].url)) : undefined;
    const crawl = virtualCrawl(repo, policy, { buffer: model === 'frontier' ? buffer : undefined, onPage: kept && ((i) => kept.add(i)) });
    const k = crawl.order.length;
    // values[j] is the curve after j + 1 pages; past the end of a short crawl it stays flat.
    let values: Float64Array;
    let earliness: Float64Array | undefined;
    if (model === 'crawl-and-stop') values = crawlAndStopCurve(importance, crawl.order);
    else if (kept) values = kept.curve;
    else {
      values = new Float64Array(k);
      let found = 0;
      crawl.order.forEach((p, j) => (values[j] = (found += hot.hot[p]) / hot.count));
      const position = new Float64Array(n);
      crawl.order.forEach((p, j) => (position[p] = j + 1));
      earliness = new Float64Array(hot.count);
      let h = 0;
      for (let p = 0; p < n; p++) if (hot.hot[p]) earliness[h++] = position[p]! > 0 ? (n - position[p]! + 1) / n : 0;
    }
    const valueAt = (pages: number) => (pages < 1 || k === 0 ? 0 : values[Math.min(pages, k) - 1]);
    let sum = 0;
    for (let j = 1; j <= n; j++) sum += valueAt(j);
    const run: OrderingRun = {
      ordering,
      crawled: k,
      dropped: crawl.dropped,
      auc: round(sum / n),
      at: { '0.1': round(valueAt(Math.round(n * 0.1))), '0.25': round(valueAt(Math.round(n * 0.25))), '0.5': round(valueAt(Math.round(n * 0.5))) },
      curve: [],
    };
    if (kept) run.pbc = round(kept.curve[k - 1] ?? 0);
    if (earliness) Object.defineProperty(run, EARLINESS, { value: earliness, enumerable: false });
    if (model === 'threshold' || model === 'frontier') {
      const firstReaching = (f: number) => {
        const j = values.findIndex((v) => v >= f - 1e-12);
        return j < 0 ? null : round((j + 1) / n);
      };
      run.crawledFor = { '0.5': firstReaching(0.5), '0.9': firstReaching(0.9) };
    } else if (model === 'crawl-and-stop' && 'top' in rule) run.pcs = round(valueAt(rule.top));
    for (let s = model === 'crawl-and-stop' ? 1 : 0; s <= points; s++) {
      const pages = Math.round((s * n) / points);
      run.curve.push([round(pages / n), round(valueAt(pages))]);
    }
    runs.push(run);
  }
  return {
    repository: { pages: n, links: repo.out.reduce((s, o) => s + o.length, 0), externalLinks: repo.externalLinks, start: repo.pages[repo.start].url },
    hot: { metric, ...(options.query ? { query: options.query } : {}), rule, threshold: hot.threshold, count: hot.count },
    model,
    ...(buffer !== undefined ? { buffer } : {}),
    orderings: runs,
    skipped,
  };
}

/**
 * Seed 001's limited buffer: the crawler keeps at most B pages; when one more arrives it flushes the
 * page it estimates least important (its ordering's current priority: IB' for backlink, IR' for
 * PageRank). BFS has no estimate (all equal): it keeps the pages crawled first, as its order says
 * they matter most; random flushes at random (its priorities are random). Curve: P_BC after each
 * page, the hot pages kept over B.
 */
class PageBuffer {
  private readonly pages: number[] = [];
  private hotKept = 0;
  readonly curve: Float64Array;
  private crawled = 0;
  constructor(
    private readonly size: number,
    private readonly hot: Uint8Array,
    private readonly estimate: (page: number) => number,
  ) {
    this.curve = new Float64Array(hot.length);
  }
  add(page: number): void {
    this.pages.push(page);
    this.hotKept += this.hot[page];
    if (this.pages.length > this.size) {
      // Priorities move as links are seen, so they are read at flush time. Ties: flush the newest.
      let worst = this.pages.length - 1;
      let worstScore = this.estimate(this.pages[worst]);
      for (let j = this.pages.length - 2; j >= 0; j--) {
        const s = this.estimate(this.pages[j]);
        if (s < worstScore) {
          worst = j;
          worstScore = s;
        }
      }
      this.hotKept -= this.hot[this.pages[worst]];
      this.pages.splice(worst, 1);
    }
    this.curve[this.crawled++] = this.hotKept / this.size;
  }
}

function describeHot(r: OrderingLabResult): string {
  const what = r.hot.metric === 'similarity' ? `similarity to "${r.hot.query}"` : r.hot.metric;
  const t = +r.hot.threshold.toPrecision(4);
  if (!('top' in r.hot.rule)) return `${r.hot.count} hot pages (${what} ≥ ${t})`;
  const short = r.hot.count < r.hot.rule.top ? `: only ${r.hot.count} score above ${t}` : `, ${what} ≥ ${t}`;
  return `${r.hot.count} hot pages (top ${r.hot.rule.top} by ${what}${short})`;
}

export function orderingLabChart(r: OrderingLabResult): string {
  const cs = r.model === 'crawl-and-stop';
  const model = cs ? 'crawl and stop' : r.model === 'buffer' ? `limited buffer of ${r.buffer} pages` : r.model === 'frontier' ? `frontier bounded to ${r.buffer} URLs` : 'crawl and stop with threshold';
  const dashes = ['', '6 3', '2 3', '8 3 2 3', '1 2', '10 4'];
  return toSvg(lineChart({
    title: `${r.repository.pages} pages, ${describeHot(r)}\n${model}`,
    xLabel: 'fraction of pages crawled',
    yLabel: cs ? 'P_CS: hot share of the pages crawled' : r.model === 'buffer' ? 'P_BC: hot share of the B pages kept' : 'fraction of hot pages crawled',
    xMin: 0, xMax: 1, yMin: 0, yMax: 1,
    width: 640, height: 440,
    // Curves of several orderings often overlap: dashes keep each one visible.
    series: r.orderings.map((o, i) => ({ name: o.ordering, points: o.curve.map(([x, y]): [number, number] => [x, y]), markers: false, dash: dashes[i % dashes.length] || undefined })),
    diagonal: !cs && r.model !== 'buffer',
  }));
}

export function formatOrderingLab(r: OrderingLabResult): string {
  const cs = r.model === 'crawl-and-stop';
  const lines = [
    `repository: ${r.repository.pages} pages, ${r.repository.links} links between them, start ${r.repository.start}`,
    `${describeHot(r)}; model ${r.model}${r.buffer !== undefined ? ` (${r.model === 'buffer' ? `${r.buffer} pages kept` : `frontier of ${r.buffer} URLs`})` : ''}`,
    cs
      ? 'ordering     crawled  P_CS@10%  P_CS@25%  P_CS@50%  mean' + ('top' in r.hot.rule ? '  P_CS@K' : '')
      : r.model === 'buffer'
        ? 'ordering     crawled  P_BC@10%  P_BC@25%  P_BC@50%  P_BC at the end  mean'
        : 'ordering     crawled  hot@10%  hot@25%  hot@50%  crawled for 50%  for 90%  mean',
  ];
  const pct = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${(v * 100).toFixed(1)}%`);
  for (const o of r.orderings) {
    const head = `${o.ordering.padEnd(12)} ${String(o.crawled).padStart(7)}`;
    if (r.model === 'buffer') {
      lines.push(`${head}  ${pct(o.at['0.1']).padStart(8)}  ${pct(o.at['0.25']).padStart(8)}  ${pct(o.at['0.5']).padStart(8)}  ${pct(o.pbc).padStart(15)}  ${o.auc.toFixed(3)}`);
    } else if (cs) {
      lines.push(`${head}  ${pct(o.at['0.1']).padStart(8)}  ${pct(o.at['0.25']).padStart(8)}  ${pct(o.at['0.5']).padStart(8)}  ${o.auc.toFixed(3)}${o.pcs !== undefined ? `  ${pct(o.pcs).padStart(6)}` : ''}`);
    } else {
      lines.push(
        `${head}  ${pct(o.at['0.1']).padStart(7)}  ${pct(o.at['0.25']).padStart(7)}  ${pct(o.at['0.5']).padStart(7)}  ${pct(o.crawledFor?.['0.5']).padStart(15)}  ${pct(o.crawledFor?.['0.9']).padStart(7)}  ${o.auc.toFixed(3)}` +
          (o.dropped ? `  (${o.dropped} URLs dropped)` : ''),
      );
    }
  }
  for (const s of r.skipped) lines.push(`${s.ordering}: skipped (${s.reason})`);
  return lines.join('\n');
}
