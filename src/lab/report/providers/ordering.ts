/**
 * Seed 001's URL-ordering claims, with the seed's own definitions: backlink-hot pages at the three
 * shares the seed used (H = 45 %, 10 %, 0.8 % of the pages), PageRank-hot at G = 13 (PageRank on the
 * seed's scale, mean 1), crawl and stop, the limited buffer of B pages, and the similarity rule (a
 * word in the title or more than 10 times in the body). On every site available: the PostgreSQL
 * documentation (1,169 pages, the size of the seed's small site), a second real site of another
 * size when this machine has one (the Rust standard library's documentation, 2,475 files), or the
 * built-in quick site; and, given one (--large-site), a site of the seed's large size built from
 * Debian documentation packages by `lab site --debian`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { OrderingName } from '../../../frontier/order/policy.ts';
import type { RepositoryGraph } from '../../ordering/graph.ts';
import type { HotRule, ImportanceName } from '../../ordering/importance.ts';
import { hotEarliness, orderingLabChart, runOrderingLab, type ModelName, type OrderingLabResult } from '../../ordering/run.ts';
import { bootstrapRatio, direction, holmFamily } from '../../stats.ts';
import { judge } from '../rules.ts';
import { loadSiteGraph } from '../../ordering/site-loader.ts';
import { loadDebianSite } from '../../ordering/debian-site.ts';
import { unpackDeb } from '../../../util/deb.ts';
import { tokenize } from '../../../frontier/order/text.ts';
import { quickSite } from '../quick-data.ts';
import type { Claim, ClaimProvider, ProviderResult, ReportContext } from '../types.ts';
import { verdictOf } from '../types.ts';
import { table } from '../format.ts';
import { UserError } from '../../../util/errors.ts';

const CONTENT_BLIND: OrderingName[] = ['bfs', 'backlink', 'pagerank', 'random'];
/** The small-site rule's margin over random (src/lab/report/rules.ts, 001-small-site-worse-than-random). */
const TIE = 0.005;

export interface OrderingSite {
  key: string;
  label: string;
  graph: RepositoryGraph;
  /** Words for the similarity rule (the seed used "computer" on Stanford's pages). */
  words: string[];
  /** False when only titles and `words` of the page text were kept (too large a site for all of it). */
  textKept?: boolean;
}

/** Words for the similarity rule on the Debian documentation site: programming-documentation words, as "computer" was on Stanford's pages. */
const LARGE_SITE_WORDS = ['thread', 'matrix', 'window'];

function rustStdDocs(): string | undefined {
  try {
    const root = execFileSync('rustc', ['--print', 'sysroot'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dir = path.join(root, 'share/doc/rust/html/std');
    return fs.existsSync(path.join(dir, 'index.html')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

export async function orderingSites(ctx: ReportContext & { secondSite?: string; largeSite?: string }): Promise<{ sites: OrderingSite[]; cleanup: () => void }> {
  const sites: OrderingSite[] = [];
  let cleanup = () => {};
  const deb = ctx.sharedData && path.join(ctx.sharedData, 'sites', 'postgresql-doc-15_15.20-0+deb12u1_all.deb');
  if (!ctx.quick && deb && fs.existsSync(deb)) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-report-pg-'));
    cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
    ctx.progress('ordering: unpacking the PostgreSQL documentation');
    unpackDeb(deb, dir);
    const graph = await loadSiteGraph(path.join(dir, 'usr/share/doc/postgresql-doc-15/html'), { base: 'http://pg.local/' });
    sites.push({ key: 'pg', label: `PostgreSQL 15 documentation (${graph.pages.length} pages, real)`, graph, words: ['vacuum', 'replication', 'index'] });
  }
  const second = ctx.quick ? undefined : ctx.secondSite ?? rustStdDocs();
  if (second) {
    ctx.progress(`ordering: loading ${second}`);
    const graph = await loadSiteGraph(second, { base: 'http://rust.local/' });
    sites.push({ key: 'rust', label: `${ctx.secondSite ? path.basename(second) : 'Rust standard library documentation'} (${graph.pages.length} pages, real)`, graph, words: ['iterator', 'thread', 'unsafe'] });
  }
  if (ctx.largeSite && !ctx.quick) {
    ctx.progress(`ordering: loading ${ctx.largeSite}`);
    // 111,000 pages' text, anchor texts and link context words do not fit a 4 GB heap: keep what the
    // seed's metrics read (links, titles, and the similarity rule's words, counted exactly), so every
    // claim but the TF-IDF one (which needs all the text) runs here.
    const keep = new Set(LARGE_SITE_WORDS);
    const site = await loadDebianSite(ctx.largeSite, (p) => ({
      url: p.url,
      ...(p.title ? { title: p.title } : {}),
      text: tokenize(p.text ?? '').filter((w) => keep.has(w)).join(' '),
      links: p.links.map((l) => ({ url: l.url })),
    }));
    const n = site.graph.pages.length;
    sites.push({
      key: 'large',
      label: `Debian documentation (${site.manifest.packages.map((p) => p.name).join(', ')}; one host each): ${n.toLocaleString('en')} pages, real (${site.redirects.toLocaleString('en')} of them redirect stubs) but for one generated portal page linking each package's HTML roots; of the text only titles and the words ${LARGE_SITE_WORDS.map((w) => `"${w}"`).join(', ')} kept at this size`,
      graph: site.graph,
      words: LARGE_SITE_WORDS,
      textKept: false,
    });
  }
  if (sites.length === 0) {
    const graph = quickSite();
    sites.push({ key: 'quick', label: `generated manual (${graph.pages.length} pages, quick data)`, graph, words: ['vacuum'] });
  }
  return { sites, cleanup };
}

interface Run {
  what: string;
  result: OrderingLabResult;
}

function lab(site: OrderingSite, hot: ImportanceName, model: ModelName, rule?: HotRule, query?: string): OrderingLabResult {
  return runOrderingLab(site.graph, { hot, model, rule, query, orderings: CONTENT_BLIND, points: 50 });
}

/** Random's curve mean over seeds 1–5: one random order is a noisy baseline. */
function randomMean(site: OrderingSite, hot: ImportanceName, model: ModelName, rule?: HotRule, query?: string): number {
  let sum = 0;
  for (let seed = 1; seed <= 5; seed++) sum += runOrderingLab(site.graph, { hot, model, rule, query, orderings: ['random'], seed }).orderings[0].auc;
  return sum / 5;
}

/** A hot-page definition no page meets is a fact about the site, not an error of the report. */
function hotOrNone(f: () => OrderingLabResult): OrderingLabResult | undefined {
  try {
    return f();
  } catch (e) {
    if (e instanceof UserError && /no page is hot/.test(e.message)) return undefined;
    throw e;
  }
}

const aucs = (r: OrderingLabResult) => r.orderings.map((o) => `${o.ordering} ${o.auc.toFixed(3)}`).join(', ');
const auc = (r: OrderingLabResult, o: OrderingName) => r.orderings.find((x) => x.ordering === o)!.auc;

/**
 * "`o` finds the hot pages earliest": its curve mean minus each other ordering's, paired over the hot
 * pages and bootstrapped over them, Holm-corrected as one family; it holds only when every corrected
 * interval is above zero (a tie is a tie, not a win). Models whose curve is not a mean over pages
 * (crawl and stop) have no per-page terms: there `o` must be strictly ahead.
 */
export function earliest(r: OrderingLabResult, o: OrderingName): { holds: boolean; text: string } {
  const mine = r.orderings.find((x) => x.ordering === o)!;
  const others = r.orderings.filter((x) => x !== mine);
  const e = hotEarliness(mine);
  if (!e || others.some((x) => !hotEarliness(x))) return { holds: others.every((x) => mine.auc > x.auc), text: `${o} must be strictly ahead (no interval for this model)` };
  const ones = new Float64Array(e.length).fill(1);
  const family = holmFamily(others.map((x) => bootstrapRatio(Float64Array.from(e, (v, i) => v - hotEarliness(x)![i]!), ones)));
  const text = `${o} − each, Holm-corrected 95 % interval over the ${e.length} hot pages: ${others.map((x, i) => `${x.ordering} ${family[i]!.estimate >= 0 ? '+' : ''}${family[i]!.estimate.toFixed(3)} [${family[i]!.corrected.low.toFixed(3)}, ${family[i]!.corrected.high.toFixed(3)}]`).join(', ')}`;
  return { holds: family.every((c) => direction(c) === 'above'), text };
}

/** Every claim for one site: exported so a test can flip verdicts with its own graph. */
export function orderingClaims(site: OrderingSite): { claims: Claim[]; runs: Run[] } {
  const n = site.graph.pages.length;
  const claims: Claim[] = [];
  const runs: Run[] = [];
  const base = { seed: '001', data: site.label };
  const at = { pages: n };
  const figure = (k: string) => `ordering-${site.key}-${k}`;
  // Backlink-hot at the seed's three shares.
  for (const [share, tag] of [[0.45, '45'], [0.1, '10'], [0.008, '0.8']] as const) {
    const top = Math.max(1, Math.round(n * share));
    const r = lab(site, 'backlink', 'threshold', { top });
    runs.push({ what: `backlink-hot, top ${tag} % (${r.hot.count} pages), crawl and stop with threshold`, result: r });
    const e = earliest(r, 'pagerank');
    claims.push({ ...base, id: `001-pagerank-best-backlink-${tag}-${site.key}`, figure: figure(`backlink-${tag}`), claim: `PageRank ordering finds backlink-hot pages earliest (hot = top ${tag} % by backlinks).`, ...judge('001-pagerank-best-backlink', at, `curve means: ${aucs(r)}; ${e.text}`, () => verdictOf(e.holds)) });
  }
  const ten = runs[1].result;
  const pr = ten.orderings.find((o) => o.ordering === 'pagerank')!;
  claims.push({ ...base, id: `001-hot-early-${site.key}`, figure: figure('backlink-10'), claim: 'With a good ordering (PageRank) a crawler gets a significant portion of the hot pages relatively early.', ...judge('001-hot-early', at, `PageRank ordering has ${(100 * pr.at['0.25']).toFixed(1)} % of the top-10 % backlink-hot pages after 25 % of the crawl (random ≈ 25 %)`, () => verdictOf(pr.at['0.25'] >= 0.5)) });
  // PageRank-hot, G = 13 on the seed's scale: IR(p) = (1 − d) + d Σ …, mean 1; the lab's ranks sum to 1.
  const g13 = hotOrNone(() => lab(site, 'pagerank', 'threshold', { threshold: 13 / n }));
  if (g13) runs.push({ what: `PageRank-hot, G = 13 (${g13.hot.count} pages), crawl and stop with threshold`, result: g13 });
  claims.push({
    ...base,
    id: `001-pagerank-best-pagerank-g13-${site.key}`,
    figure: g13 ? figure('pagerank-g13') : undefined,
    claim: 'PageRank ordering finds PageRank-hot pages (G = 13) earliest.',
    ...(!g13 || g13.hot.count < 3
      ? { measured: g13 ? `only ${g13.hot.count} hot pages; curve means: ${aucs(g13)}` : `no page has a PageRank of 13 times the mean on these ${n} pages`, verdict: 'not testable here' as const }
      : ((e) => judge('001-pagerank-best-pagerank-g13', at, `${g13.hot.count} hot pages; curve means: ${aucs(g13)}; ${e.text}`, () => verdictOf(e.holds)))(earliest(g13, 'pagerank'))),
  });
  const cs = lab(site, 'backlink', 'crawl-and-stop', { top: Math.max(1, Math.round(n / 10)) });
  runs.push({ what: 'backlink importance, crawl and stop (P_CS)', result: cs });
  const csWin = earliest(cs, 'pagerank');
  claims.push({ ...base, id: `001-pagerank-best-crawl-and-stop-${site.key}`, figure: figure('crawl-and-stop'), claim: 'The PageRank result is not limited to the threshold model: it holds for crawl and stop (P_CS).', ...judge('001-pagerank-best-crawl-and-stop', at, `P_CS curve means: ${aucs(cs)}; ${csWin.text}`, () => verdictOf(csWin.holds)) });
  const buf = lab(site, 'backlink', 'buffer');
  runs.push({ what: `limited buffer of ${buf.buffer} pages, hot = the top ${buf.buffer} by backlinks (P_BC)`, result: buf });
  claims.push({ ...base, id: `001-pagerank-best-buffer-${site.key}`, figure: figure('buffer'), claim: 'The PageRank result holds for the limited-buffer model (B pages kept, P_BC).', ...judge('001-pagerank-best-buffer', at, `P_BC when the crawl ends: ${buf.orderings.map((o) => `${o.ordering} ${(100 * (o.pbc ?? 0)).toFixed(1)} %`).join(', ')}; PageRank must be strictly ahead`, () => verdictOf(buf.orderings.every((o) => o.ordering === 'pagerank' || (buf.orderings.find((x) => x.ordering === 'pagerank')!.pbc ?? 0) > (o.pbc ?? 0)))) });
  // The small-site finding, where the site is of that size.
  const rnd = randomMean(site, 'backlink', 'threshold', { top: Math.max(1, Math.round(n / 10)) });
  const beaters = ten.orderings.filter((o) => o.ordering !== 'random' && o.auc > rnd + TIE);
  claims.push({
    ...base,
    id: `001-small-site-worse-than-random-${site.key}`,
    figure: figure('backlink-10'),
    claim: 'On a small site (~1,100 pages) every ordering does worse than a random crawler (backlink importance).',
    ...judge('001-small-site-worse-than-random', at, `${n} pages; curve means ${ten.orderings.filter((o) => o.ordering !== 'random').map((o) => `${o.ordering} ${o.auc.toFixed(3)}`).join(', ')} against random ${rnd.toFixed(3)} (mean of 5 seeds)`, () => verdictOf(beaters.length === 0)),
  });
  // The similarity rule.
  for (const word of site.words) {
    const r = hotOrNone(() => lab(site, 'keyword', 'threshold', undefined, word));
    if (!r) {
      claims.push({ ...base, id: `001-keyword-only-bfs-${site.key}-${word}`, claim: 'Similarity-hot pages (a word in the title or > 10 times in the body): only breadth-first gives a reasonable result.', measured: `"${word}": 0 hot pages`, verdict: 'not testable here' });
      continue;
    }
    runs.push({ what: `keyword-hot: "${word}" in the title or more than 10 times in the body (${r.hot.count} pages)`, result: r });
    const rw = randomMean(site, 'keyword', 'threshold', undefined, word);
    const fair = (o: OrderingName) => auc(r, o) > rw + 0.05;
    claims.push({
      ...base,
      id: `001-keyword-only-bfs-${site.key}-${word}`,
      figure: figure(`keyword-${word}`),
      claim: `Similarity-hot pages (a word in the title or > 10 times in the body): backlink and PageRank orderings are no better than random; only breadth-first gives a reasonable result.`,
      ...(r.hot.count < 5
        ? { measured: `"${word}", only ${r.hot.count} hot pages`, verdict: 'not testable here' as const }
        : judge('001-keyword-only-bfs', at, `"${word}", ${r.hot.count} hot pages; curve means: ${aucs(r)}; random over 5 seeds ${rw.toFixed(3)}`, () => verdictOf(fair('bfs') && !fair('backlink') && !fair('pagerank')))),
    });
  }
  claims.push(...docsOrderingClaims(site, runs));
  return { claims, runs };
}

/** bench/ORDERING.md's own findings beyond the seed's definitions (its first sections), on the same site. */
function docsOrderingClaims(site: OrderingSite, runs: Run[]): Claim[] {
  const n = site.graph.pages.length;
  const base = { seed: '001', data: site.label };
  const claims: Claim[] = [];
  const g50 = hotOrNone(() => lab(site, 'backlink', 'threshold', { threshold: 50 }));
  if (g50) runs.push({ what: `backlink-hot, G = 50 (${g50.hot.count} pages), crawl and stop with threshold`, result: g50 });
  claims.push({
    ...base,
    id: `001-docs-bfs-best-g50-${site.key}`,
    claim: 'With backlink-hot pages at G = 50 (only the very top pages: the tables of contents) breadth-first finds them earliest. bench/ORDERING.md, "Backlink-hot pages".',
    measured: g50 ? `${g50.hot.count} hot pages; curve means: ${aucs(g50)}` : `no page has 50 backlinks on these ${n} pages`,
    ...(!g50 || g50.hot.count < 3 ? { verdict: 'not testable here' as const } : ((e) => ({ measured: `${g50.hot.count} hot pages; curve means: ${aucs(g50)}; ${e.text}`, verdict: verdictOf(e.holds) }))(earliest(g50, 'bfs'))),
  });
  const prTop = lab(site, 'pagerank', 'threshold', { top: Math.max(1, Math.round(n / 10)) });
  runs.push({ what: `PageRank-hot, top 10 % (${prTop.hot.count} pages), crawl and stop with threshold`, result: prTop });
  const at10 = (o: OrderingName) => prTop.orderings.find((x) => x.ordering === o)!.at['0.1'];
  const prWin = earliest(prTop, 'pagerank');
  claims.push({
    ...base,
    id: `001-docs-pagerank-hot-top10-${site.key}`,
    claim: 'PageRank-hot pages (top 10 % by PageRank): PageRank ordering is best over the whole crawl, but breadth-first is ahead after the first 10 % of it. bench/ORDERING.md, "PageRank-hot pages".',
    measured: `curve means: ${aucs(prTop)}; ${prWin.text}; after 10 % of the crawl bfs has ${(100 * at10('bfs')).toFixed(1)} % of the hot pages, pagerank ${(100 * at10('pagerank')).toFixed(1)} %`,
    verdict: verdictOf(prWin.holds && at10('bfs') > at10('pagerank')),
  });
  const word = site.words[0]!;
  if (site.textKept === false) {
    claims.push({ ...base, id: `001-docs-similarity-ordering-first-${site.key}`, claim: 'Similarity-hot pages (TF-IDF against a query): the similarity ordering, which reads anchor texts, reaches half of them before every content-blind ordering. bench/ORDERING.md, "Similarity-hot pages".', measured: `TF-IDF needs every page's whole text, anchor texts and link context, which this site's ${n.toLocaleString('en')} pages were loaded without`, verdict: 'not testable here' });
    return claims;
  }
  const sim = hotOrNone(() => runOrderingLab(site.graph, { hot: 'similarity', model: 'threshold', query: word, orderings: [...CONTENT_BLIND, 'similarity'], points: 50 }));
  if (sim) runs.push({ what: `similarity-hot (TF-IDF against "${word}", ${sim.hot.count} pages), crawl and stop with threshold`, result: sim });
  const half = (o: OrderingName) => sim?.orderings.find((x) => x.ordering === o)?.crawledFor?.['0.5'] ?? Infinity;
  claims.push({
    ...base,
    id: `001-docs-similarity-ordering-first-${site.key}`,
    claim: 'Similarity-hot pages (TF-IDF against a query): the similarity ordering, which reads anchor texts, reaches half of them before every content-blind ordering. bench/ORDERING.md, "Similarity-hot pages".',
    measured: sim ? `"${word}", ${sim.hot.count} hot pages; share of the site crawled for half of them: ${sim.orderings.map((o) => `${o.ordering} ${Number.isFinite(half(o.ordering)) ? `${(100 * half(o.ordering)).toFixed(1)} %` : 'never'}`).join(', ')}` : `"${word}": 0 hot pages`,
    verdict: !sim || sim.hot.count < 5 ? 'not testable here' : verdictOf(CONTENT_BLIND.every((o) => half('similarity') <= half(o))),
  });
  return claims;
}

/** The seed's scale contrast: orderings help on the large site and not on the small one. */
export function scaleClaim(results: Array<{ site: OrderingSite; runs: Run[] }>): Claim {
  const gains = results.map(({ site, runs }) => {
    const r = runs[1].result;
    return { site, n: site.graph.pages.length, gain: auc(r, 'pagerank') - auc(r, 'random') };
  });
  const base = { seed: '001', id: '001-scale', claim: 'Ordering pays less on a small site than on a large one (the seed: better than random on 179,000 pages, worse on 1,100).', data: gains.map((g) => g.site.label).join('; ') };
  if (gains.length < 2) return { ...base, measured: 'only 1 site here', verdict: 'not testable here' };
  gains.sort((a, b) => a.n - b.n);
  const [small, large] = [gains[0], gains[gains.length - 1]];
  const measured = `PageRank's curve mean minus random's (backlink-hot, top 10 %): ${gains.map((g) => `${g.n} pages ${g.gain >= 0 ? '+' : ''}${g.gain.toFixed(3)}`).join(', ')}`;
  // The seed compared 1,100 pages with 179,000: sites within a factor of 10 of each other say nothing about scale.
  if (large.n < 10 * small.n) return { ...base, measured: `${measured}; the largest site is only ${(large.n / small.n).toFixed(1)} times the smallest (the seed's was 160 times)`, verdict: 'not testable here' };
  return { ...base, ...judge('001-scale', { pages: large.n }, measured, () => verdictOf(small.gain < 0 && large.gain > 0)) };
}

export function orderingProvider(options: { secondSite?: string; largeSite?: string } = {}): ClaimProvider {
  return {
    name: 'ordering',
    seed: '001',
    title: 'URL ordering (seed 001)',
    async run(ctx): Promise<ProviderResult> {
      const { sites, cleanup } = await orderingSites({ ...ctx, ...options });
      try {
        const res: ProviderResult = { claims: [], figures: {}, details: [] };
        const all: Array<{ site: OrderingSite; runs: Run[] }> = [];
        for (const site of sites) {
          ctx.progress(`ordering: virtual crawls over ${site.label}`);
          const { claims, runs } = orderingClaims(site);
          all.push({ site, runs });
          res.claims.push(...claims);
          for (const c of claims) {
            const run = runs.find((r) => c.figure && figureKey(site, r) === c.figure);
            if (run && c.figure && !res.figures[c.figure]) res.figures[c.figure] = { title: `${site.label}: ${run.what}`, svg: orderingLabChart(run.result) };
          }
          res.details!.push(`<h4>${site.label}</h4>`, table(['experiment', 'hot pages', ...CONTENT_BLIND.map((o) => `${o} mean`)], runs.map((r) => [r.what, String(r.result.hot.count), ...CONTENT_BLIND.map((o) => auc(r.result, o).toFixed(3))])));
        }
        res.claims.push(scaleClaim(all));
        return res;
      } finally {
        cleanup();
      }
    },
  };
}

/** The figure key of a run, matching the keys the claims name. */
function figureKey(site: OrderingSite, run: Run): string {
  const r = run.result;
  const k = site.key;
  if (r.model === 'crawl-and-stop') return `ordering-${k}-crawl-and-stop`;
  if (r.model === 'buffer') return `ordering-${k}-buffer`;
  if (r.hot.metric === 'keyword') return `ordering-${k}-keyword-${r.hot.query}`;
  if (r.hot.metric === 'pagerank') return `ordering-${k}-pagerank-g13`;
  const share = 'top' in r.hot.rule ? r.hot.rule.top / site.graph.pages.length : 0;
  return `ordering-${k}-backlink-${share > 0.3 ? '45' : share > 0.05 ? '10' : '0.8'}`;
}
