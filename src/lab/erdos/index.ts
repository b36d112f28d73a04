/**
 * Seed 003's benchmark of "sensible use of RDF crawling", end to end: the Erdős number of every
 * researcher of a generated scholarly Web (src/testkit/scholarly-web.ts: papers as HTML with RDFa,
 * JSON-LD or microdata over many hosts, served on 127.0.0.1 through a forward proxy), computed by
 * SPARQL over what two crawls archived:
 *
 * 1. a query-driven crawl from Erdős's page (`crawl --follow`: only the authors of papers and the
 *    papers of authors are followed, never citations);
 * 2. a breadth-first crawl that follows every link, the whole Web reachable from the same page.
 *
 * Each archive gets its numbers level by level through runQuery (numbers.ts), checked against the
 * generator's ground truth. Then the Web grows (new papers that shorten some distances); the
 * query-driven archive is re-crawled as a monitored archive is: its URLs are monitored with the
 * default re-crawl strategy, a cycle (runCycle, `datamonitor run`) fetches what is due and tells
 * changed graphs from unchanged ones, and a query-driven crawl over the archive
 * (`--follow-archive`) fetches what the changed pages now point to. The numbers are computed again,
 * now and as the archive was at the end of the first crawl (`query --at`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crawl, type CapturedDocument, type CrawlOptions } from '../../crawler/crawl.ts';
import { Knowledge } from '../../crawler/follow/knowledge.ts';
import { hostOf } from '../../frontier/normalize.ts';
import { barChart, lineChart, stack } from '../../plot/svg.ts';
import { VersionIndex } from '../../versions/version-index.ts';
import { DEFAULT_STRATEGY, runCycle } from '../../recrawl/cycle.ts';
import { openStore } from '../../store/index.ts';
import { startForwardProxy } from '../../testkit/forward-proxy.ts';
import { SCHEMA, startScholarlyWeb, type ScholarlyWeb } from '../../testkit/scholarly-web.ts';
import { UserError } from '../../util/errors.ts';
import { archiveSelect, erdosNumbersBySparql, knowledgeSelect } from './numbers.ts';

export { coauthorQuery, erdosNumbersBySparql } from './numbers.ts';

/** The query-driven crawl's --follow query: authors of papers, papers of people; citations are never followed. */
export const FOLLOW_QUERY = `PREFIX schema: <${SCHEMA}>
SELECT ?next WHERE { { ?paper schema:author ?next } UNION { ?person schema:subjectOf ?next } }`;

const DOMAIN = 'scholar.test';

export interface ErdosLabOptions {
  /** Papers of the generated Web (default 1,000). */
  papers?: number;
  /** Hosts the papers are spread over (default 8). */
  hosts?: number;
  /** Seed of the generated Web (default 1). */
  seed?: number;
  /** Research fields (default 2): co-authors within a field, citations across; Erdős's field is the first. */
  fields?: number;
  /** Papers added before the re-crawl (default: 2 % of the papers, at least 2; 0: no re-crawl). */
  grow?: number;
  /** Keep the archives here (`follow/`, `bfs/`; must not exist or be empty); default: a temporary directory, removed. */
  dataDir?: string;
  /** Requests in flight per host (default 4). */
  perHost?: number;
  /**
   * Time between two requests to a host (default 0: the server is on this machine). A crawl of the real
   * Web waits a second or more, which makes its time a matter of documents per host.
   */
  delayMs?: number;
  /** A line that replaces the last one (a progress bar). */
  onProgress?: (text: string) => void;
  /** A line that stays: a phase is done. */
  onPhase?: (text: string) => void;
}

/** Researchers scored against a ground truth. */
export interface Score {
  /** Researchers the SPARQL gave a number. */
  numbered: number;
  correct: number;
  /** A number other than the truth's (also a number for one the truth says has none). */
  wrong: number;
  /** The truth has a number, the SPARQL none. */
  missing: number;
}

export interface MethodResult {
  method: 'follow' | 'bfs';
  label: string;
  /** HTTP responses archived (303s included, robots.txt not). */
  documents: number;
  /** Of which redirects (a citation's /id/ IRI answers 303 See Other). */
  redirects: number;
  /** Of which paper pages and researcher pages. */
  papers: number;
  people: number;
  bytes: number;
  triples: number;
  crawlSeconds: number;
  /** Bringing the archive's version index up to date with the crawl (what `query` does first). */
  indexSeconds: number;
  /** The SPARQL queries that numbered everyone, and their time. */
  queries: number;
  querySeconds: number;
  score: Score;
  /** Researchers with a correct number (SPARQL over the documents so far) against documents fetched, in fetch order. */
  curve: Array<[number, number]>;
}

export interface ChangedNumber {
  researcher: string;
  name: string;
  /** From the first crawl's archive; null: none. */
  before: number | null;
  /** After the re-crawl. */
  after: number | null;
  /** The grown Web's ground truth. */
  truth: number | null;
}

export interface GrowthResult {
  papersAdded: number;
  researchersAdded: number;
  /** When the first query-driven crawl ended: `query --at` this time sees the archive as it was. */
  firstCrawlAt: string;
  /** The re-crawl cycle over the monitored URLs. */
  cycle: { due: number; downloads: number; changed: number; errors: number; seconds: number };
  /** The query-driven crawl over the archive after the cycle: the documents it fetched (new papers and researchers). */
  followUp: { documents: number; seconds: number };
  /** Researchers whose number changed (or who got one). */
  changed: ChangedNumber[];
  /** Numbers changed by the growth, by the ground truth. */
  truthChanged: number;
  /** The numbers now against the grown Web's truth. */
  after: Score;
  /** The numbers as the archive was at `firstCrawlAt`, against the first Web's truth. */
  atFirstCrawl: Score;
  /** Whether the numbers at `firstCrawlAt` are exactly those computed after the first crawl. */
  atFirstCrawlSameAsBefore: boolean;
  /** A `query --at` command that shows a changed researcher's papers before the growth (with `dataDir`). */
  queryAt?: string;
}

export interface ErdosLabResult {
  web: { papers: number; hosts: number; seed: number; fields: number; researchers: number; withNumber: number; maxNumber: number };
  /** How the crawls fetched: requests in flight per host, time between two requests to a host. */
  politeness: { perHost: number; delayMs: number };
  methods: MethodResult[];
  growth?: GrowthResult;
  /** Where the archives are kept (with `dataDir`). */
  dataDir?: string;
  seconds: number;
}

const LABELS = { follow: 'query-driven (--follow authors and their papers)', bfs: 'breadth-first (every link)' } as const;

export async function runErdosLab(o: ErdosLabOptions = {}): Promise<ErdosLabResult> {
  const t0 = Date.now();
  const papers = o.papers ?? 1000;
  const hosts = o.hosts ?? 8;
  const seed = o.seed ?? 1;
  const fields = o.fields ?? 2;
  const grow = o.grow ?? Math.max(2, Math.round(papers * 0.02));
  if (!(Number.isInteger(papers) && papers >= 3)) throw new UserError(`--papers must be a whole number ≥ 3 (Erdős writes the first three), got ${papers}`);
  if (!(Number.isInteger(hosts) && hosts >= 1)) throw new UserError(`--hosts must be a whole number ≥ 1, got ${hosts}`);
  if (!(Number.isInteger(fields) && fields >= 1)) throw new UserError(`--fields must be a whole number ≥ 1, got ${fields}`);
  if (!(Number.isInteger(grow) && grow >= 0)) throw new UserError(`--grow must be a whole number ≥ 0, got ${grow}`);
  const root = o.dataDir ? keptDir(o.dataDir) : fs.mkdtempSync(path.join(os.tmpdir(), 'dm-erdos-'));
  const phase = o.onPhase ?? (() => {});
  const progress = o.onProgress ?? (() => {});

  const site = await startScholarlyWeb({ papers, hosts, seed, fields });
  const proxy = await startForwardProxy((hostname) => (hostname === DOMAIN || hostname.endsWith(`.${DOMAIN}`) ? site.port : undefined));
  const fetching: Partial<CrawlOptions> = {
    proxy: proxy.url, resolve: {}, allowPrivate: true, delayMs: o.delayMs ?? 0, perHost: o.perHost ?? 4, domains: [DOMAIN], vocabularies: false,
  };
  try {
    const truth0 = truthOf(site);
    phase(`scholarly Web: ${papers} papers in ${fields} fields on ${hosts} hosts, ${site.web.researchers} researchers, ${truth0.size} with an Erdős number (at most ${Math.max(...truth0.values())})`);
    // Loads what both crawls use (the crawler, the query engine) once, so that neither is charged for it.
    await crawl({ ...fetching, seeds: [site.seed], dataDir: path.join(root, 'warm-up'), depth: 0, follow: FOLLOW_QUERY }).run();
    fs.rmSync(path.join(root, 'warm-up'), { recursive: true, force: true });
    const methods: MethodResult[] = [];
    const numbersBefore = new Map<string, Map<string, number>>();
    let firstCrawlAt = 0;
    let archived: string[] = [];
    for (const method of ['follow', 'bfs'] as const) {
      const dir = path.join(root, method);
      const run = await crawlAndNumber(site, method, dir, fetching, truth0, progress);
      if (method === 'follow') ({ endedAt: firstCrawlAt, archived } = run);
      methods.push(run.result);
      numbersBefore.set(method, run.numbers);
      const r = run.result;
      phase(`${r.label}: ${r.documents} documents in ${r.crawlSeconds.toFixed(1)} s; ${r.queries} SPARQL queries in ${r.querySeconds.toFixed(1)} s: ${r.score.correct} correct, ${r.score.wrong} wrong, ${r.score.missing} missing`);
    }
    const result: ErdosLabResult = {
      web: { papers, hosts, seed, fields, researchers: site.web.researchers, withNumber: truth0.size, maxNumber: Math.max(...truth0.values()) },
      politeness: { perHost: fetching.perHost!, delayMs: fetching.delayMs! },
      methods,
      dataDir: o.dataDir ? root : undefined,
      seconds: 0,
    };
    if (grow > 0) {
      result.growth = await growAndRecrawl(site, grow, path.join(root, 'follow'), fetching, firstCrawlAt, archived, numbersBefore.get('follow')!, truth0, phase, progress, o.dataDir !== undefined);
    }
    result.seconds = (Date.now() - t0) / 1000;
    return result;
  } finally {
    await proxy.close();
    await site.close();
    if (!o.dataDir) fs.rmSync(root, { recursive: true, force: true });
  }
}

/** A directory to keep the archives in: new, or empty. */
function keptDir(dir: string): string {
  const root = path.resolve(dir);
  if (fs.existsSync(root) && (!fs.statSync(root).isDirectory() || fs.readdirSync(root).length > 0)) {
    throw new UserError(`--data '${dir}' is not an empty directory: the lab writes two new archives there; give a new or empty directory`);
  }
  fs.mkdirSync(root, { recursive: true });
  return root;
}

/** The generator's ground truth, by researcher IRI. */
function truthOf(site: ScholarlyWeb): Map<string, number> {
  return new Map([...site.web.erdosNumbers()].map(([a, n]) => [site.web.person(a), n]));
}

export function score(numbers: Map<string, number>, truth: Map<string, number>): Score {
  let correct = 0;
  let wrong = 0;
  for (const [who, n] of numbers) {
    if (truth.get(who) === n) correct++;
    else wrong++;
  }
  let missing = 0;
  for (const who of truth.keys()) if (!numbers.has(who)) missing++;
  return { numbered: numbers.size, correct, wrong, missing };
}

/** Opens a data directory's version index (caught up), runs fn over it, closes it. */
async function withArchive<T>(dir: string, fn: (archive: Awaited<ReturnType<VersionIndex['current']>>, indexMs: number) => Promise<T>): Promise<T> {
  const store = await openStore(dir);
  const index = VersionIndex.open(dir, store);
  try {
    const t = Date.now();
    const archive = await index.current();
    return await fn(archive, Date.now() - t);
  } finally {
    await index.close();
    await store.close();
  }
}

async function crawlAndNumber(
  site: ScholarlyWeb, method: 'follow' | 'bfs', dir: string, fetching: Partial<CrawlOptions>, truth: Map<string, number>, progress: (s: string) => void,
): Promise<{ result: MethodResult; numbers: Map<string, number>; endedAt: number; archived: string[] }> {
  const erdos = site.web.person(0);
  const t = Date.now();
  const c = crawl({
    ...fetching, seeds: [site.seed], dataDir: dir, depth: 1_000_000,
    ...(method === 'follow' ? { follow: FOLLOW_QUERY } : {}),
  });
  // In fetch order, for the curve; replayed after the crawl so that the crawl's time is its own.
  const fetched: Array<Pick<CapturedDocument, 'url' | 'finalUrl' | 'status' | 'quads'>> = [];
  for await (const doc of c) {
    if (doc.status <= 0) continue;
    fetched.push({ url: doc.url, finalUrl: doc.finalUrl, status: doc.status, quads: doc.quads });
    if (fetched.length % 25 === 0) progress(`${LABELS[method]}: ${fetched.length} documents`);
  }
  const endedAt = Date.now();
  const summary = c.summary!;
  const crawlSeconds = (endedAt - t) / 1000;
  progress(`${LABELS[method]}: numbering researchers by SPARQL over the archive`);
  const { numbers, queries, queryMs, indexMs } = await withArchive(dir, async (archive, indexMs) => {
    const q = Date.now();
    const r = await erdosNumbersBySparql(archiveSelect(archive), erdos);
    return { ...r, queryMs: Date.now() - q, indexMs };
  });
  progress(`${LABELS[method]}: the curve of correct numbers against documents fetched`);
  const curve = await correctCurve(fetched, erdos, truth);
  const kind = (d: (typeof fetched)[number]) => new URL(d.url).pathname.split('/')[1];
  return {
    numbers,
    endedAt,
    archived: fetched.filter((d) => d.status === 200).map((d) => d.finalUrl ?? d.url),
    result: {
      method, label: LABELS[method],
      documents: summary.documents + summary.reasons.redirected,
      redirects: summary.reasons.redirected,
      papers: fetched.filter((d) => d.status === 200 && kind(d) === 'paper').length,
      people: fetched.filter((d) => d.status === 200 && kind(d) === 'person').length,
      bytes: summary.bytes, triples: summary.triples,
      crawlSeconds, indexSeconds: indexMs / 1000, queries, querySeconds: queryMs / 1000,
      score: score(numbers, truth),
      curve,
    },
  };
}

/**
 * Researchers with a correct number after each k documents of a crawl: its documents learnt in fetch
 * order into one store, the same SPARQL run at about 40 points along the way.
 */
async function correctCurve(fetched: Array<Pick<CapturedDocument, 'url' | 'finalUrl' | 'status' | 'quads'>>, erdos: string, truth: Map<string, number>): Promise<Array<[number, number]>> {
  const k = new Knowledge();
  const step = Math.max(1, Math.ceil(fetched.length / 40));
  const curve: Array<[number, number]> = [[0, 0]];
  try {
    for (let i = 0; i < fetched.length; i++) {
      const d = fetched[i]!;
      if (d.quads.length) k.add(d.finalUrl ?? d.url, d.quads);
      if ((i + 1) % step === 0 || i === fetched.length - 1) {
        const { numbers } = await erdosNumbersBySparql(knowledgeSelect(k), erdos);
        curve.push([i + 1, score(numbers, truth).correct]);
      }
    }
  } finally {
    k.close();
  }
  return curve;
}

async function growAndRecrawl(
  site: ScholarlyWeb, count: number, dir: string, fetching: Partial<CrawlOptions>, firstCrawlAt: number, archived: string[], before: Map<string, number>,
  truth0: Map<string, number>, phase: (s: string) => void, progress: (s: string) => void, kept: boolean,
): Promise<GrowthResult> {
  const erdos = site.web.person(0);
  // What the first crawl archived is monitored from now on, as `datamonitor add` does (due at once: never observed by its strategy).
  await monitor(dir, archived, Date.now());

  const researchers0 = site.web.researchers;
  const added = site.web.grow(count);
  const truth1 = truthOf(site);
  const truthChanged = [...truth1].filter(([who, n]) => truth0.get(who) !== n).length;
  phase(`the Web grows: ${added.length} new papers, ${site.web.researchers - researchers0} new researchers; ${truthChanged} Erdős numbers change`);

  progress('re-crawl: a cycle over the monitored URLs');
  let t = Date.now();
  const cycle = await runCycle({ dataDir: dir, crawl: fetching });
  if (cycle.status !== 'done') throw new Error(`the re-crawl cycle ${cycle.status}: ${cycle.note ?? ''}`);
  const cycleSeconds = (Date.now() - t) / 1000;
  phase(`re-crawl cycle: ${cycle.due} monitored URLs due, ${cycle.downloads} downloaded, ${cycle.changed} changed, in ${cycleSeconds.toFixed(1)} s`);

  progress('re-crawl: query-driven crawl over the archive');
  t = Date.now();
  const followUp = crawl({ ...fetching, seeds: [site.seed], dataDir: dir, depth: 1_000_000, follow: FOLLOW_QUERY, followArchive: true });
  const newUrls: string[] = [];
  for await (const doc of followUp) if (doc.status === 200) newUrls.push(doc.finalUrl ?? doc.url);
  const followSeconds = (Date.now() - t) / 1000;
  const documents = followUp.summary!.documents + followUp.summary!.reasons.redirected;
  phase(`query-driven crawl over the archive (--follow-archive): ${documents} new documents in ${followSeconds.toFixed(1)} s`);
  // What it found is monitored too, as the rest.
  await monitor(dir, newUrls, Date.now());

  progress('numbering researchers now and as the archive was at the end of the first crawl');
  const { now, atFirst } = await withArchive(dir, async (archive) => ({
    now: (await erdosNumbersBySparql(archiveSelect(archive), erdos)).numbers,
    atFirst: (await erdosNumbersBySparql(archiveSelect(archive, firstCrawlAt), erdos)).numbers,
  }));
  const changed: ChangedNumber[] = [];
  for (const who of new Set([...before.keys(), ...now.keys()])) {
    if (before.get(who) === now.get(who)) continue;
    changed.push({ researcher: who, name: site.web.nameOf(researcherIndex(who)), before: before.get(who) ?? null, after: now.get(who) ?? null, truth: truth1.get(who) ?? null });
  }
  changed.sort((a, b) => (b.before ?? Infinity) - (b.after ?? 0) - ((a.before ?? Infinity) - (a.after ?? 0)) || a.researcher.localeCompare(b.researcher));
  const sameAsBefore = atFirst.size === before.size && [...before].every(([who, n]) => atFirst.get(who) === n);
  const shown = changed.find((c) => c.before !== null) ?? changed[0];
  return {
    papersAdded: added.length,
    researchersAdded: site.web.researchers - researchers0,
    firstCrawlAt: new Date(firstCrawlAt).toISOString(),
    cycle: { due: cycle.due, downloads: cycle.downloads, changed: cycle.changed, errors: cycle.errors, seconds: cycleSeconds },
    followUp: { documents, seconds: followSeconds },
    changed,
    truthChanged,
    after: score(now, truth1),
    atFirstCrawl: score(atFirst, truth0),
    atFirstCrawlSameAsBefore: sameAsBefore,
    queryAt: kept && shown
      ? `datamonitor query --data ${dir} --at ${new Date(firstCrawlAt).toISOString()} 'PREFIX schema: <${SCHEMA}> SELECT ?paper WHERE { ?paper schema:author <${shown.researcher}> }'`
      : undefined,
  };
}

/** Monitors URLs with the default re-crawl strategy, as `datamonitor add` does. */
async function monitor(dir: string, urls: string[], nextFetch: number): Promise<void> {
  const store = await openStore(dir);
  try {
    await store.addDocuments(urls.map((url) => ({ url, host: hostOf(url), depth: 0 })), { monitored: true, strategy: DEFAULT_STRATEGY, nextFetch });
  } finally {
    await store.close();
  }
}

function researcherIndex(iri: string): number {
  return Number(/\/person\/(\d+)#me$/.exec(iri)?.[1] ?? -1);
}

// ---- Reporting --------------------------------------------------------------------------------------

function table(head: string[], rows: Array<Array<string | number>>, right: boolean[]): string {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_h, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells.map((r) => r.map((c, i) => (right[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}

const show = (n: number | null) => (n === null ? '–' : String(n));

export function formatErdosLab(r: ErdosLabResult, o: { changedRows?: number } = {}): string {
  const w = r.web;
  const lines = [
    `Erdős numbers of a generated scholarly Web: ${w.papers} papers in ${w.fields} field${w.fields === 1 ? '' : 's'} on ${w.hosts} hosts (seed ${w.seed}), ${w.researchers} researchers, ${w.withNumber} with an Erdős number (at most ${w.maxNumber})`,
    '',
    table(
      ['method', 'documents', 'papers', 'people', 'crawl s', 'index s', 'queries', 'query s', 'correct', 'wrong', 'missing'],
      r.methods.map((m) => [m.label, m.documents, m.papers, m.people, m.crawlSeconds.toFixed(1), m.indexSeconds.toFixed(1), m.queries, m.querySeconds.toFixed(1), m.score.correct, m.score.wrong, m.score.missing]),
      [false, true, true, true, true, true, true, true, true, true, true],
    ),
  ];
  const [f, b] = r.methods;
  if (f && b) lines.push('', `The query-driven crawl fetched ${(f.documents / b.documents).toFixed(2)}× the documents of the breadth-first crawl (${f.documents} against ${b.documents}).`);
  const g = r.growth;
  if (g) {
    const rows = o.changedRows ?? 15;
    lines.push(
      '',
      `The Web grew by ${g.papersAdded} papers and ${g.researchersAdded} researchers (${g.truthChanged} numbers change in truth). Re-crawl of the query-driven archive:`,
      `  cycle over the ${g.cycle.due} monitored URLs (strategy ${DEFAULT_STRATEGY}, due at once): ${g.cycle.downloads} downloaded, ${g.cycle.changed} changed, in ${g.cycle.seconds.toFixed(1)} s`,
      `  query-driven crawl over the archive (--follow-archive): ${g.followUp.documents} new documents in ${g.followUp.seconds.toFixed(1)} s`,
      '',
      `Numbers that changed: ${g.changed.length}${g.changed.length > rows ? ` (the first ${rows}; --json lists all)` : ''}`,
      table(['researcher', 'before', 'after', 'truth'], g.changed.slice(0, rows).map((c) => [c.name, show(c.before), show(c.after), show(c.truth)]), [false, true, true, true]).replace(/^/gm, '  '),
      '',
      `now: ${g.after.correct} correct, ${g.after.wrong} wrong, ${g.after.missing} missing (truth of the grown Web)`,
      `at ${g.firstCrawlAt} (the end of the first crawl): ${g.atFirstCrawl.correct} correct, ${g.atFirstCrawl.wrong} wrong, ${g.atFirstCrawl.missing} missing (truth of the first Web); ${g.atFirstCrawlSameAsBefore ? 'the same numbers as the first crawl gave' : 'NOT the numbers the first crawl gave'}`,
    );
    if (g.queryAt) lines.push(`  ${g.queryAt}`);
  }
  if (r.dataDir) lines.push('', `Archives kept in ${r.dataDir} (follow/, bfs/).`);
  return lines.join('\n');
}

export function erdosLabPlot(r: ErdosLabResult): string {
  const total = r.web.withNumber;
  const maxDocs = Math.max(...r.methods.map((m) => m.documents));
  const curves = lineChart({
    title: `Erdős numbers found against documents fetched (${r.web.papers} papers, ${r.web.hosts} hosts)`,
    xLabel: 'documents fetched',
    yLabel: 'researchers with a correct number',
    series: [
      ...r.methods.map((m) => ({ name: m.method === 'follow' ? 'query-driven' : 'breadth-first', points: m.curve, markers: false })),
      { name: 'with a number', points: [[0, total], [maxDocs, total]] as Array<[number, number]>, markers: false, dash: '5 3' },
    ],
    xMin: 0,
    yMin: 0,
    note: 'SPARQL over the documents fetched so far, in fetch order; the truth is the generator\'s',
  });
  const categories: string[] = r.methods.map((m) => (m.method === 'follow' ? 'query-driven' : 'breadth-first'));
  const scores = r.methods.map((m) => m.score);
  if (r.growth) {
    categories.push('after re-crawl', 'at first crawl');
    scores.push(r.growth.after, r.growth.atFirstCrawl);
  }
  const bars = barChart({
    title: 'Numbers against the ground truth',
    categories,
    series: [
      { name: 'correct', values: scores.map((s) => s.correct) },
      { name: 'wrong', values: scores.map((s) => s.wrong) },
      { name: 'missing', values: scores.map((s) => s.missing) },
    ],
    yLabel: 'researchers',
  });
  return stack([curves, bars]);
}
