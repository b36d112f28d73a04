import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { readTrustList } from '../../trust/multikey.ts';
import { crawl, storageStopExit, type CrawlOptions, type CrawlSummary } from '../../crawler/crawl.ts';
import { scopeBanner } from '../../crawler/banner.ts';
import { openStore } from '../../store/index.ts';
import { writeBehind } from '../../store/write-behind.ts';
import { BATCH_DEFAULTS } from '../../store/pg-batch.ts';
import { UserError } from '../../util/errors.ts';
import { parseResolveEntry } from '../../fetch/address.ts';
import { formatBytes, formatDuration, parseBytes, parseCount, parseDuration, plural } from '../../util/units.ts';
import { compactMetadata } from '../compact.ts';
import { ProgressLine, catchUpProgressText } from '../progress.ts';
import { describeDeferred } from '../../frontier/politeness.ts';
import { EXIT } from '../../util/exit-codes.ts';
import { collect } from '../config.ts';
import { renderTable } from '../../query/sparql.ts';
import type { QueryDrivenSummary } from '../../crawler/follow/index.ts';
import type { VariantsSummary } from '../../crawler/variants/stage.ts';
import type { LdesSummary } from '../../crawler/ldes/streams.ts';
import { LiveIndex } from '../../versions/live-index.ts';
import { isPostgresUrl } from '../../versions/version-index.ts';
import { redactUrl } from '../../store/redact.ts';
import { describeOutcomes } from '../../vocabulary/outcomes.ts';
import { META_FILE, VERSIONS_FILE } from '../../util/data-dir.ts';
import { summaryOf } from './index.ts';
import { steadyHeapGrowth } from '../../util/memory.ts';


/** Exit status when every seed failed or was refused (sysexits' EX_UNAVAILABLE): a script must not take it for a crawl. */
export const UNAVAILABLE_EXIT_CODE = EXIT.unavailable;
/** Exit status after Ctrl-C (128 + SIGINT), as shells report it: the crawl was cut short, and resumes. */
export const INTERRUPTED_EXIT_CODE = EXIT.interrupted;

/** How to fetch: politeness, safety, identity and what else to archive of each page (requisites, variants). Shared by every command that fetches (`crawl`, `demo`, `worker`, `run`, `daemon`). */
export function addFetchFlags(cmd: Command): Command {
  return cmd
    .option('--delay <duration>', 'least time between two requests to one host', '1s')
    .option('--per-host <n>', 'requests in flight per host', '1')
    .option('--concurrency <n>', 'requests in flight in all', '16')
    .option('--timeout <duration>', 'connect/header timeout (the whole request gets twice this)', '30s')
    .option('--max-body <size>', 'largest body kept; longer ones are truncated and marked', '10MiB')
    .option('--user-agent <ua>', 'User-Agent header (default: datamonitor/<version> with --contact)')
    .option('--contact <url>', 'contact URL or e-mail put in the User-Agent')
    .option('--no-robots', 'ignore robots.txt (only for your own sites)')
    .option('--allow-private', 'allow private, loopback and link-local addresses')
    .option('--proxy <url>', 'send requests through this HTTP proxy (default: HTTP_PROXY/HTTPS_PROXY)')
    .option('--resolve <host:ip>', 'resolve a host name to an address, like curl (repeatable)', collect)
    .option('--page-requisites', "also archive what each page loads to be shown (images, style sheets, scripts, icons, media), on any host, for replay")
    .option('--variants', 'also fetch every other representation each RDF document offers (Link/HTML rel="alternate", Vary: Accept), archive each once and compare its graph with the document\'s (a disagreement is logged as variant-mismatch)');
}

/** The crawl flags, shared by `crawl`, `demo` and `worker`. */
export function addCrawlFlags(cmd: Command): Command {
  return addFetchFlags(cmd)
    .option('--data <dir>', 'data directory (metadata store and WARC files)', 'data')
    .option('--db <url>', 'metadata store: postgres://… (default: SQLite in --data)')
    .option('--depth <n>', 'hops from the seeds', '3')
    .option('--include <regex>', 'only URLs matching (repeatable)', collect)
    .option('--exclude <regex>', 'skip URLs matching (repeatable)', collect)
    .option('--domain <host>', 'only these hosts and their subdomains (repeatable)', collect)
    .option('--mime <type>', 'parse only these media types, e.g. text/turtle or text/* (repeatable)', collect)
    .option('--max-docs <n>', 'stop after this many documents in this run (a resumed crawl counts afresh)')
    .option('--max-bytes <size>', 'stop after downloading this much in this run, e.g. 500MiB')
    .option('--max-triples <n>', 'stop after extracting this many triples in this run')
    .option('--max-time <duration>', 'stop a run after this long, e.g. 10m')
    .option('--no-vocabularies', 'do not fetch the vocabularies the data uses')
    .option('--sitemaps', "also crawl the URLs the seeds' sitemaps list (robots.txt Sitemap: lines, else /sitemap.xml)")
    .option('--sitemap <url>', 'read this sitemap (or sitemap index) and crawl the URLs it lists (repeatable)', collect)
    .option('--order <metric>', 'frontier ordering: bfs, backlink, pagerank, location, similarity, random; query (with --follow: the IRIs bound in the most solutions first)', 'bfs')
    .option('--query <words>', 'the driving query of --order similarity')
    .option('--trust <file>', "check each document's Data Integrity proofs (eddsa-rdfc-2022) against these keys (one did:key a line); the verdict goes into the crawl log")
    .option('--trusted-only', 'with --trust: keep and follow only documents verified by a trusted key')
    .option('--seen-cache <policy>', 'cache of the seen-URL set: clock, lru, random', 'clock')
    .option('--seen-cache-size <n>', 'entries in the seen-URL cache', '262144')
    .option('--frontier-memory <n>', 'queued URLs, and origins, held in memory; the rest wait on disk in the data directory (bfs order; 0 = no bound)', '500000')
    .option('--trace-out <file>', 'append every URL the seen test receives to this file')
    .option('--min-free-space <size>', 'stop cleanly (URLs left queued) when the data directory\'s disk has less free than this; 0 = never', '100MiB')
    .option('--json', 'print the summary as JSON');
}

export function readSeeds(args: string[], file?: string): string[] {
  const seeds = [...args];
  if (file) {
    if (!fs.existsSync(file)) throw new UserError(`seeds file '${file}' does not exist`);
    for (const line of fs.readFileSync(file, 'utf8').split(/\r?\n/)) {
      const t = line.trim();
      if (t && !t.startsWith('#')) seeds.push(t);
    }
  }
  return seeds;
}

function parseResolve(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs?.length) return undefined;
  const out: Record<string, string> = {};
  for (const p of pairs) {
    try {
      const { host, ip } = parseResolveEntry(p);
      out[host] = ip;
    } catch (e) {
      throw new UserError(`--resolve ${(e as Error).message}`);
    }
  }
  return out;
}

function seenPolicy(p: string | undefined): CrawlOptions['seenCache'] {
  if (p === undefined) return undefined;
  if (!['clock', 'lru', 'random'].includes(p)) throw new UserError(`--seen-cache '${p}' is not one of clock, lru, random`);
  return p as CrawlOptions['seenCache'];
}

const opt = <T>(v: unknown, f: (s: string) => T): T | undefined => (v === undefined ? undefined : f(String(v)));

/** Fetch flags → the politeness and fetching part of CrawlOptions. */
// biome-ignore lint/suspicious/noExplicitAny: commander's parsed flags, whose types the option definitions above give
export function fetchOptionsFrom(flags: Record<string, any>): Partial<CrawlOptions> {
  return {
    delayMs: opt(flags.delay, (s) => parseDuration(s, '--delay')),
    perHost: opt(flags.perHost, (s) => parseCount(s, '--per-host')),
    concurrency: opt(flags.concurrency, (s) => parseCount(s, '--concurrency')),
    timeoutMs: opt(flags.timeout, (s) => parseDuration(s, '--timeout')),
    maxBodyBytes: opt(flags.maxBody, (s) => parseBytes(s, '--max-body')),
    userAgent: flags.userAgent,
    contact: flags.contact,
    robots: flags.robots,
    allowPrivate: flags.allowPrivate,
    proxy: flags.proxy,
    resolve: parseResolve(flags.resolve),
    pageRequisites: flags.pageRequisites,
    variants: flags.variants,
  };
}

/** Flags → CrawlOptions (everything validated, with errors that name the flag). */
// biome-ignore lint/suspicious/noExplicitAny: commander's parsed flags, whose types the option definitions above give
export async function crawlOptionsFrom(flags: Record<string, any>, seeds: string[]): Promise<CrawlOptions> {
  return {
    seeds,
    ...fetchOptionsFrom(flags),
    dataDir: path.resolve(flags.data),
    // Into PostgreSQL, a page is written with the links it found, in batches committed in order (src/store/write-behind.ts):
    // a database lost for good between the two cannot leave a page fetched whose links nobody adds.
    store: flags.db ? writeBehind(await openStore(path.resolve(flags.data), flags.db, { batch: BATCH_DEFAULTS })) : undefined,
    depth: opt(flags.depth, (s) => parseCount(s, '--depth')),
    include: flags.include,
    exclude: flags.exclude,
    domains: flags.domain,
    mime: flags.mime,
    vocabularies: flags.vocabularies,
    sitemaps: flags.sitemaps,
    sitemapUrls: flags.sitemap,
    ldes: flags.ldes,
    ldesSince: opt(flags.ldesSince, parseSince),
    maxDocs: opt(flags.maxDocs, (s) => parseCount(s, '--max-docs')),
    maxBytes: opt(flags.maxBytes, (s) => parseBytes(s, '--max-bytes')),
    maxTriples: opt(flags.maxTriples, (s) => parseCount(s, '--max-triples')),
    maxTimeMs: opt(flags.maxTime, (s) => parseDuration(s, '--max-time')),
    traceOut: flags.traceOut,
    order: flags.order,
    seenCache: seenPolicy(flags.seenCache),
    seenCacheSize: opt(flags.seenCacheSize, (s) => parseCount(s, '--seen-cache-size')),
    frontierMemory: opt(flags.frontierMemory, (s) => parseCount(s, '--frontier-memory') || Number.POSITIVE_INFINITY),
    query: flags.query,
    follow: flags.follow,
    followArchive: flags.followArchive,
    until: flags.until,
    answer: flags.answer,
    followBatch: flags.followBatch,
    followMaxPerDocument: opt(flags.followMaxPerDocument, (s) => parseCount(s, '--follow-max-per-document')),
    followMaxBindings: opt(flags.followMaxBindings, (s) => parseCount(s, '--follow-max-bindings')),
    followMaxQueryTimeMs: opt(flags.followMaxQueryTime, (s) => parseDuration(s, '--follow-max-query-time')),
    minFreeBytes: opt(flags.minFreeSpace, (s) => parseBytes(s, '--min-free-space')),
    trust: flags.trust ? readTrustList(flags.trust) : undefined,
    trustedOnly: flags.trustedOnly,
  };
}

/** `--ldes-since`: an xsd:dateTime (or a date, UTC midnight). */
function parseSince(text: string): number {
  const t = /^\d{4}-\d\d-\d\d(T.*)?$/.test(text) ? Date.parse(text.includes('T') || text.length > 10 ? text : `${text}T00:00:00Z`) : Number.NaN;
  if (!Number.isFinite(t)) throw new UserError(`--ldes-since '${text}' is not a date-time: give e.g. 2025-01-01T00:00:00Z or 2025-01-01`);
  return t;
}

/** What --ldes read and archived, in two lines. */
function ldesLines(l: LdesSummary): string[] {
  const a = l.archived;
  const lines = [`  ldes: ${plural(l.pages.fetched, 'page')} fetched, ${l.pages.fromArchive} read back from the archive (immutable); ${plural(l.members, 'member')}: ${a.new} new, ${a.changed} changed, ${a.unchanged} unchanged, ${a.deleted} deleted; ${l.skipped.notNewer} archived before${l.skipped.beforeSince ? `, ${l.skipped.beforeSince} before --ldes-since` : ''}${l.skipped.invalid ? `, ${l.skipped.invalid} unreadable` : ''}`];
  if (l.pending) lines.push(`  ldes: ${plural(l.pending, 'member')} read, not archived: the crawl stopped before the stream's end (run it again to resume)`);
  if (l.failedPages.length) lines.push(`  ldes: ${plural(l.failedPages.length, 'page')} could not be read (a later crawl tries again): ${l.failedPages.slice(0, 3).join('; ')}${l.failedPages.length > 3 ? '; …' : ''}`);
  for (const d of l.diagnostics.slice(0, 5)) lines.push(`  ldes: ${d}`);
  return lines;
}

/** The non-zero reason counts, most frequent first. */
function reasonLine(s: CrawlSummary): string {
  return Object.entries(s.reasons).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).map(([r, n]) => `${r} ${n}`).join(', ');
}

export function printSummary(s: CrawlSummary, json: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify(s, null, 2) + '\n');
    return;
  }
  const lines = [
    `Crawled ${plural(s.documents, 'document')} in ${formatDuration(s.durationMs)}${s.resumed ? ' (resumed)' : ''}: ${s.triples} triples, ${formatBytes(s.bytes)}`,
    `  ${describeOutcomes(s.outcomes)}`,
    `  skipped: robots.txt ${s.skipped.robots}, filtered ${s.skipped.filtered}, failing hosts ${s.skipped.hostFailing}; still queued ${s.queued}; hosts ${s.hosts}`,
    ...(reasonLine(s) ? [`  reasons: ${reasonLine(s)}${Object.entries(s.reasons).some(([r, n]) => n > 0 && r !== 'fetched' && r !== 'unchanged') ? ` (datamonitor log --data ${s.dataDir} lists them)` : ''}`] : []),
    ...(s.sitemaps.read ? [`  sitemaps: ${s.sitemaps.read} read, ${s.sitemaps.urls} URLs listed`] : []),
    ...(s.ldes ? ldesLines(s.ldes) : []),
    ...(s.frontier?.spilled ? [`  frontier: at most ${s.frontier.peakInMemory} queued URLs in memory; ${s.frontier.spilled} waited on disk (--frontier-memory)`] : []),
    ...(s.trust ? [`  trust: ${Object.entries(s.trust).map(([v, n]) => `${v} ${n}`).join(', ') || 'no documents parsed'}`] : []),
    ...(s.query ? [queryLine(s.query)] : []),
    ...(s.variants ? [variantsLine(s.variants)] : []),
    s.stoppedBy ? `  stopped by ${s.stoppedBy}${s.stopMessage ? `: ${s.stopMessage}` : ''}` : '  frontier exhausted',
    `  archive: ${s.dataDir}`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  if (s.query?.answer) process.stdout.write(answerText(s.query.answer));
}

/** What --variants fetched and found, in one line. */
function variantsLine(v: VariantsSummary): string {
  const found = v.mismatch ? `${plural(v.mismatch, 'disagreement')} (datamonitor log --reason variant-mismatch)` : 'no disagreement';
  return `  variants: ${plural(v.documents, 'document')} offered more; ${plural(v.requests, 'request')}, ${v.archived} archived, ${v.duplicates} duplicate or none; ${v.agree} agree, ${found}${v.notCompared ? `, ${v.notCompared} not compared` : ''}`;
}

/** What the driving queries of a query-driven crawl cost and found, in one line. */
function queryLine(q: QueryDrivenSummary): string {
  const parts = [`learnt ${plural(q.learnt.documents, 'document')} (${q.learnt.quads} quads)`];
  if (q.evaluations) parts.push(`queries run ${q.evaluations} times (${q.schedule}) in ${formatDuration(q.evaluationMs)}`);
  if (q.bindings !== undefined) parts.push(`${plural(q.bindings, 'IRI')} bound to follow`);
  if (q.archive) parts.push(`${plural(q.archive.documents, 'document')} answered from the archive, ${q.archive.stale} stale fetched again`);
  const cut = q.cut;
  if (cut && cut.perDocument + cut.perCrawl > 0) parts.push(`cut ${plural(cut.perDocument + cut.perCrawl, 'binding')} (${cut.perDocument} over the per-document cap, ${cut.perCrawl} over the per-crawl cap)`);
  if (cut && cut.literals + cut.blankNodes > 0) parts.push(`bound ${plural(cut.literals, 'literal')} and ${plural(cut.blankNodes, 'blank node')}, which cannot be followed`);
  if (cut?.queryBudget) parts.push('query time budget spent: the queries stopped running');
  if (q.answered !== undefined) parts.push(q.answered ? `--until answered after ${q.answeredAfter} documents` : '--until not answered');
  return `  query-driven: ${parts.join('; ')}`;
}

/** The --answer solutions as a table, then the documents each came from. */
function answerText(a: NonNullable<QueryDrivenSummary['answer']>): string {
  const table = renderTable({ head: { vars: a.vars }, results: { bindings: a.rows.map((r) => r.binding) } });
  const sources = a.rows.map((r, i) => `  ${i + 1}. ${r.documents.length ? r.documents.join(' ') : '(no single document: a property path or a value the query made)'}`);
  return `answer:\n${table}${a.rows.length ? `documents of each result:\n${sources.join('\n')}\n` : ''}`;
}

/** Runs a crawl with a progress line and prints its summary; `live.index` (default true) keeps the version index current meanwhile. */
export async function runCrawlCommand(options: CrawlOptions, json: boolean, live: { index?: boolean; db?: string } = {}): Promise<CrawlSummary> {
  steadyHeapGrowth();
  const progress = new ProgressLine();
  const liveIndex = (live.index ?? true) ? LiveIndex.start(options.dataDir, { db: live.db }) : undefined;
  // First Ctrl-C: take no new URLs, let the fetches in flight finish and be archived. Second: abort them.
  const drain = new AbortController();
  const abort = new AbortController();
  // Once the crawl and its index are done, only the metadata rewrite's wait for readers is left to cut short.
  const closing = new AbortController();
  let compacting = false;
  const onSignal = () => {
    if (compacting) return closing.abort();
    if (drain.signal.aborted) return abort.abort();
    drain.abort();
    process.stderr.write('\nstopping: finishing the fetches in flight (Ctrl-C again to abort them)\n');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    // On stderr, so that --json output stays one JSON document.
    process.stderr.write(scopeBanner(options));
    const c = crawl({ ...options, signal: abort.signal, drain: drain.signal }).onProgress((p) => {
      const rate = p.elapsedMs > 0 ? (p.documents / p.elapsedMs) * 1000 : 0;
      const waiting = p.deferred ? `; ${describeDeferred(p.deferred)}` : '';
      progress.update(`crawling: ${p.documents} docs, ${p.queued} queued, ${rate.toFixed(1)} docs/s, ${p.errors} errors, ${p.triples} triples${waiting}`);
    });
    const summary = await c.run();
    progress.done();
    printSummary(summary, json);
    if (liveIndex) {
      // The index's last catch-up: seconds when it kept up, most of a catch-up when the crawl outran it.
      const indexing = new ProgressLine();
      const index = await liveIndex.stop((p) => indexing.update(catchUpProgressText(p)));
      indexing.done();
      // On stderr, so that --json output stays one JSON document.
      const where = live.db && isPostgresUrl(live.db) ? redactUrl(live.db) : path.join(options.dataDir, VERSIONS_FILE);
      const c = index.compacted;
      const compacted = c ? `; its read indexes built whole again in ${c.seconds.toFixed(1)} s, ${(c.freedBytes / 1048576).toFixed(1)} MiB given back${c.reusableBytes > 0 ? `, ${(c.reusableBytes / 1048576).toFixed(1)} MiB kept for later rows` : ''}` : '';
      process.stderr.write(`version index kept current: ${plural(index.versions, 'version')} indexed (${where}, log id ${index.lastLogId})${index.failed ? `; ${index.failed} could not be` : ''}${index.bulkCatchUps ? '; loaded in bulk, its read indexes built once at the end' : ''}${compacted}\n`);
      for (const d of index.diagnostics.slice(0, 5)) process.stderr.write(`  ${d}\n`);
    }
    const storageExit = storageStopExit(summary.stoppedBy);
    // Not after a stop for storage (a full disk most of all) or a signal: the user wants the crawl ended, not rewritten.
    if (!options.store && storageExit === undefined && summary.stoppedBy !== 'signal') {
      compacting = true;
      await compactMetadata(options.dataDir, closing.signal);
    }
    if (storageExit !== undefined) {
      // The crawl is not done: scripts must see it. Nothing archived is lost, and the same command resumes.
      process.stderr.write(`datamonitor: crawl stopped early: ${summary.stopMessage}\n`);
      process.exitCode = storageExit;
    } else if (summary.stoppedBy === 'signal') {
      process.exitCode = INTERRUPTED_EXIT_CODE;
    } else if (summary.allSeedsFailed) {
      process.stderr.write(`datamonitor: no seed could be crawled (datamonitor log --data ${summary.dataDir} says why)\n`);
      process.exitCode = UNAVAILABLE_EXIT_CODE;
    }
    return summary;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await liveIndex?.stop().catch(() => undefined); // after a failed crawl: ended, its index left as far as it got
    await options.store?.close();
  }
}

export function register(program: Command): void {
  addCrawlFlags(
    program
      .command('crawl')
      .description(summaryOf('crawl'))
      .argument('[seeds...]', 'seed URLs')
      .option('--seeds <file>', 'file with one seed URL a line')
      .option('--ldes <url>', 'read this Linked Data Event Stream (its root or a view; repeatable): its pages are fetched politely and archived, its tree:relation links followed, and each member archived as a version of the document it is a version of, dated with the member\'s time (a deletion too). Run again to read only what is new; a stopped crawl resumes', collect)
      .option('--ldes-since <time>', 'with --ldes: only the members at or after this time (e.g. 2025-01-01T00:00:00Z), skipping the nodes whose relations say they hold none')
      .option('--refetch', 'fetch the seeds again although the archive has them: a new capture now (an unchanged one is stored as a revisit)')
      .option('--follow <select>', "query-driven: follow only the IRIs this SPARQL SELECT binds over what the crawl has learnt, e.g. 'SELECT ?next WHERE { ?paper <http://purl.org/ontology/bibo/cites> ?next }'")
      .option('--follow-archive', 'the --follow/--until queries also see the whole archive, not only this crawl\'s documents')
      .option('--follow-batch <n>', 'when the --follow/--until queries run: auto (as what was learnt grows by a tenth, and whenever nothing is queued), every, or every N documents', 'auto')
      .option('--follow-max-per-document <n>', 'follow at most N IRIs a --follow/--answer query binds from one document (the rest counted as follow-cap)', '1000')
      .option('--follow-max-bindings <n>', 'follow at most N IRIs a --follow/--answer query binds in the whole crawl', '100000')
      .option('--follow-max-query-time <duration>', 'time the --follow/--until queries may take in all; once spent they run no more and the crawl ends with what they chose', '10m')
      .option('--until <ask>', 'stop the crawl once this SPARQL ASK over what it has learnt is true')
      .option('--answer <select>', "link-traversal querying: start from the query's IRIs, follow the IRIs of triples matching its patterns (most promising first), print the answer and the documents it came from")
      .option('--live-index', 'keep the version index current while crawling, on a thread of its own at a lower priority, so that the first query waits for nothing (the default)')
      .option('--no-live-index', 'do not index while crawling: the crawl gets every core, and the first query, diff or serve indexes the whole crawl log before it answers'),
  ).action(async (args: string[], flags) => {
    const seeds = readSeeds(args, flags.seeds);
    if (seeds.length === 0 && flags.answer === undefined && !flags.ldes?.length && !fs.existsSync(path.join(path.resolve(flags.data), META_FILE)) && !flags.db) {
      throw new UserError('no seeds: give seed URLs, or --seeds FILE, or a --data directory of a crawl to resume');
    }
    if (flags.refetch && seeds.length === 0) throw new UserError('--refetch fetches the seeds again: give the URLs to capture now');
    await runCrawlCommand({ ...(await crawlOptionsFrom(flags, seeds)), refetch: Boolean(flags.refetch) }, Boolean(flags.json), { index: flags.liveIndex !== false, db: flags.db });
  });
}
