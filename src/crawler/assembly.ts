/**
 * A crawl assembled from its options: the store, the fetchers, the frontier, the chain of stages every
 * URL goes through, the writers, and what to close at the end, built in one place and one order. It
 * holds no loop: the drain (drain.ts) runs what is built here, as Heritrix builds its processor chains
 * from the crawl's beans before a thread takes the first URL.
 */
import fs from 'node:fs';
import { createHttpFetcher, staticLookup, systemLookup, RobotsCache, type RobotsOptions, type RobotsStore, buildUserAgent } from '../fetch/index.ts';
import type { Fetcher } from '../fetch/types.ts';
import type { HostRow } from '../store/types.ts';
import { openStore } from '../store/index.ts';
import { WarcWriter, recoverOpenFiles, type ArchiveWriter } from '../archive/warc-writer.ts';
import { WarcWriterThread } from '../archive/warc-writer-thread.ts';
import { HostQueues } from '../frontier/host-queues.ts';
import { OrderedFrontier } from '../frontier/ordered-frontier.ts';
import type { Frontier, FrontierEntry, SideClock } from '../frontier/types.ts';
import { createOrderingPolicy, isOrderingName, ORDERING_NAMES, type OrderingName } from '../frontier/order/index.ts';
import { normalizeUrl } from '../frontier/normalize.ts';
import type { HostTimingOptions as Timing } from '../frontier/politeness.ts';
import type { SeenSet } from '../frontier/seen/index.ts';
import { openCrawlSeen, openFrontierSpill } from './scratch-dirs.ts';
import { OptionError, UserError } from '../util/errors.ts';
import { defaultLog } from '../util/log.ts';
import type { CapturedDocument, CaptureContext } from './capture.ts';
import { CrawlSitemaps, RobotsSitemaps, seedOrigins, sitemapsToRead } from './sitemaps.ts';
import { CONTEXT_LIMITS, ContextLoader } from './contexts.ts';
import { FrontierClock, robotsFetcher, type Politeness } from './prerequisites.ts';
import { PrerequisiteStage } from './stages/prerequisite.ts';
import { DEFAULTS, type CrawlOptions, type CrawlStore, type RoundOptions } from './options.ts';
import { filtersOf } from './banner.ts';
import type { Stage } from './stages/types.ts';
import { Fates } from './stages/fates.ts';
import { ScopeStage } from './stages/scope.ts';
import { PolitenessStage } from './stages/politeness.ts';
import { RobotsStage } from './stages/robots.ts';
import { FetchStage } from './stages/fetch.ts';
import { CaptureStage } from './stages/capture.ts';
import { MAX_REDIRECT_HOPS, RedirectStage } from './stages/redirect.ts';
import { LinksStage } from './stages/links.ts';
import { StoreStage } from './stages/store.ts';
import { LearnStage } from './stages/learn.ts';
import { LdesStreams } from './ldes/streams.ts';
import { LdesStage } from './ldes/stage.ts';
import { trustVetter } from '../trust/vet.ts';
import { ProofDocumentLoader } from './detached-proofs.ts';
import type { Verdict } from '../trust/proof.ts';
import { ArchiveRecall, QueryDriver, validateDrivingQueries } from './follow/index.ts';
import { VersionIndex } from '../versions/version-index.ts';
import { Variants, zeroVariants, type VariantsSummary } from './variants/stage.ts';
import { PostgresStore } from '../store/postgres.ts';
import { hiddenAlternates, materialise, NOW } from '../query/sparql.ts';
import type { CrawlSummary } from './crawl.ts';

/** What the drain runs: the parts of one crawl, built and connected, its first URLs queued. */
export interface CrawlAssembly {
  readonly o: RoundOptions;
  /** When the crawl began (its options checked): its time limit and its duration count from here. */
  readonly startedAt: number;
  readonly store: CrawlStore;
  readonly frontier: Frontier;
  readonly scope: ScopeStage;
  readonly fates: Fates;
  readonly robots: RobotsCache | undefined;
  readonly driver: QueryDriver | undefined;
  readonly variants: Variants | undefined;
  /** With `ldes`: the streams read, whose members are archived when the crawl ends (drain.ts). */
  readonly ldes: LdesStreams | undefined;
  readonly warc: ArchiveWriter;
  readonly hosts: HostFigures;
  /** The chain every URL goes through, in order (declareChain). */
  readonly stages: readonly Stage[];
  /** Documents the chain has archived, for the drain to hand to its consumer. */
  readonly done: CapturedDocument[];
  readonly summary: CrawlSummary;
  /** Closes what the crawl opened; `closing` runs a step that may meet a storage failure. */
  release(closing: (step: () => unknown) => Promise<void>): Promise<void>;
}

export async function assembleCrawl(o: RoundOptions): Promise<CrawlAssembly> {
  await validate(o);
  const startedAt = Date.now();
  fs.mkdirSync(o.dataDir, { recursive: true });
  const store: CrawlStore = o.store ?? (await openStore(o.dataDir));
  const ownsStore = !o.store;
  await store.init();
  await recoverOpenFiles(o.dataDir, (rels) => store.warcEnds(rels));

  const userAgent = o.userAgent ?? buildUserAgent(o.contact);
  const fetchOptions = fetchOptionsOf(o, userAgent);
  // Pages follow no redirect inside the fetcher: the redirect stage archives each hop and queues its
  // target through the frontier (seen test, politeness). What a page needs on the side (robots.txt,
  // JSON-LD contexts) follows redirects in the fetcher, as RFC 9309 and JSON-LD loaders do.
  const fetcher: Fetcher = createHttpFetcher({ ...fetchOptions, maxRedirects: 0 });
  const sideFetcher: Fetcher = createHttpFetcher(fetchOptions);
  const hosts = new HostFigures();
  // WARC writing runs on a thread of its own, beside the crawl; a small fixed batch (a re-crawl
  // cycle's few URLs) stays inline, where a thread's start-up would cost more.
  const threaded = o.threads ?? !(o.noFollow && o.seeds.length < 200);
  const warc: ArchiveWriter = threaded ? new WarcWriterThread(o.dataDir) : new WarcWriter(o.dataDir);
  const timing: Timing = {
    delayMs: o.delayMs ?? DEFAULTS.delayMs, perHost: o.perHost ?? DEFAULTS.perHost,
    backoffBaseMs: o.backoffBaseMs ?? DEFAULTS.backoffBaseMs, maxBackoffMs: DEFAULTS.maxBackoffMs, maxWaitMs: o.maxWaitMs ?? DEFAULTS.maxWaitMs,
  };
  // Query-driven crawling (src/crawler/follow/): one store of what the crawl learns, for its queries.
  const driver = o.follow !== undefined || o.until !== undefined || o.answer !== undefined ? await QueryDriver.create({ ...o, followOrder: o.order === 'query' }, o.followArchive ? await archiveKnowledge(o.dataDir, store) : undefined) : undefined;
  // A second --answer is answered from the archive, re-fetching only what the re-crawl policy says is stale.
  driver?.useArchive(new ArchiveRecall(store, o.dataDir));
  const { frontier, spill } = createFrontier(o, driver, timing);
  // The seen test (src/crawler/scratch-dirs.ts). A crawl rebuilds it from the store on every start,
  // because the store, not this cache, is the record of what is known; a worker's round is handed
  // the worker's own, which lives across its rounds.
  const ownSeen = o.round ? undefined : openCrawlSeen(o.dataDir, o);
  const seen = o.round?.seen ?? ownSeen!.seen;
  const trace = o.traceOut ? fs.createWriteStream(o.traceOut, { flags: 'a' }) : undefined;
  // The versioned store that `query`, `diff` and `serve` read is not written here: it is an index
  // derived from the archive, caught up by its readers (src/versions/catch-up.ts). API users may still
  // watch each changed version through `onVersion`.
  const fates = new Fates(store, o.cycleId, o.log ?? defaultLog());
  // Requests a document in flight waits for (a JSON-LD context, a proof, the robots.txt of their origin) take
  // their turn on the frontier's clock of their host, as its URLs do (src/crawler/prerequisites.ts).
  // A turn the spacing gives (--delay, a Crawl-delay) is always waited for; a longer back-off or Retry-After fails the load.
  const clock = new FrontierClock(frontier, Math.max(CONTEXT_LIMITS.maxInlineWaitMs, timing.delayMs, DEFAULTS.maxCrawlDelayMs));
  const archive = { warc, store: fates.store, cycleId: o.cycleId };
  // An origin's robots.txt is the frontier's prerequisite entry ahead of its URLs (stages/prerequisite.ts);
  // one a context's or a proof's origin needs first is fetched on the clock and archived alike.
  const robots = o.robots === false ? undefined : new RobotsCache(robotsFetcher(sideFetcher, clock, archive), {
    userAgent,
    memory: robotsMemory(o, spill?.spill),
    maxCrawlDelayMs: DEFAULTS.maxCrawlDelayMs,
    retries: o.robotsRetries ?? DEFAULTS.robotsRetries,
    retryDelayMs: o.robotsRetryDelayMs ?? DEFAULTS.robotsRetryDelayMs,
    maxWaitMs: o.maxWaitMs ?? DEFAULTS.maxWaitMs,
    onFetched: (host, status, text) => Object.assign(hosts.row(host), { robotsStatus: status, robotsTxt: text, robotsFetchedAt: Date.now() }),
  });
  const { ctx, trustCounts } = captureContext(o, { sideFetcher, robots, timing, warc, fates, clock });

  const s: CrawlSummary = {
    documents: 0, triples: 0, bytes: 0, errors: 0, durationMs: 0, changed: 0, unchanged: 0, new: 0,
    skipped: { robots: 0, filtered: 0, hostFailing: 0 }, reasons: fates.counts, outcomes: fates.outcomes, ...(ctx.vet ? { trust: trustCounts } : {}), queued: 0, hosts: 0, resumed: false, dataDir: o.dataDir, sitemaps: { read: 0, urls: 0 },
    ...(o.variants ? { variants: zeroVariants() } : {}),
  };

  if (driver) driver.onCut = (n) => fates.count('follow-cap', n);
  const scope = new ScopeStage(frontier, seen, {
    filters: filtersOf(o), queueHost: o.queueHost, trace: trace ? (url) => trace.write(url + '\n') : undefined, onFiltered: (_url, reason) => fates.count(reason),
    onKnown: driver?.readsArchive ? (url, depth) => driver.known(url, depth) : undefined,
  });
  s.resumed = await queueKnown(o, store, scope, seen);
  // Every representation a server offers (src/crawler/variants/): requests that go through the same chain.
  const variants = o.variants ? new Variants({ scope, frontier, warc, store: fates.store, ctx, counts: s as { bytes: number; variants: VariantsSummary }, refetch: Boolean(o.refetch), cycleId: o.cycleId }) : undefined;
  const sitemaps = new CrawlSitemaps(Boolean(o.sitemaps || o.sitemapUrls?.length));
  // A re-crawl fetches its seeds again even though the store knows them.
  for (const seed of [...o.seeds, ...(driver?.seeds ?? [])]) scope.offer(seed, 0, false, o.refetch);
  for (const url of sitemapsToRead(o, robots !== undefined)) {
    sitemaps.ask(url.href, url.hostWide);
    scope.offer(url.href, 0, false, o.refetch);
  }
  // A stream's nodes are queued whatever the depth (a tree of time windows is deeper than --depth), fetched
  // again when forced (a page that may have changed).
  const ldes = o.ldes?.length ? new LdesStreams({ store, dataDir: o.dataDir, since: o.ldesSince, cycleId: o.cycleId, onVersion: o.onVersion, loadDocument: ctx.loadDocument, resumesQueued: !o.noFollow && !o.round, offer: (url, force) => void scope.offer(url, 0, true, force) }) : undefined;
  ldes?.start(o.ldes!);
  if (ldes) s.ldes = ldes.summary;
  await scope.flush(store);

  const done: CapturedDocument[] = [];
  const stages = declareChain({ o, store, frontier, scope, fates, robots, fetcher, sideFetcher, warc, ctx, hosts, variants, driver, sitemaps, ldes, counts: s, done });
  return {
    o, startedAt, store, frontier, scope, fates, robots, driver, variants, ldes, warc, hosts, stages, done, summary: s,
    async release(closing) {
      driver?.close();
      await fetcher.close();
      await sideFetcher.close();
      if (ownSeen) await closing(() => ownSeen.close());
      spill?.close();
      trace?.end();
      if (ownsStore) await closing(() => store.close());
    },
  };
}

/** The parts the chain's stages are built from. */
interface ChainParts {
  o: RoundOptions;
  store: CrawlStore;
  frontier: Frontier;
  scope: ScopeStage;
  fates: Fates;
  robots: RobotsCache | undefined;
  fetcher: Fetcher;
  /** The fetcher of prerequisites, which follows redirects. */
  sideFetcher: Fetcher;
  warc: ArchiveWriter;
  ctx: CaptureContext;
  hosts: HostFigures;
  variants: Variants | undefined;
  driver: QueryDriver | undefined;
  sitemaps: CrawlSitemaps;
  ldes: LdesStreams | undefined;
  counts: CrawlSummary;
  done: CapturedDocument[];
}

/**
 * The chain every URL goes through, in order (src/crawler/stages/): the scope stage admitted it to
 * the frontier, whose politeness handed it out now.
 */
function declareChain(p: ChainParts): Stage[] {
  const { o, frontier, fates, robots, variants, driver, scope, counts: s } = p;
  const retryLater = (e: FrontierEntry): boolean => {
    if ((e.retries ?? 0) >= DEFAULTS.maxRetries) return false;
    scope.retry(e);
    return true;
  };
  const onCrawlDelay = (entry: FrontierEntry, ms: number) => {
    frontier.setDelay(entry.origin, ms);
    p.hosts.row(entry.host).crawlDelayMs = ms;
  };
  return [
    ...(variants ? [variants.head] : []),
    new PolitenessStage({ frontier, fates, maxFailures: DEFAULTS.maxHostFailures, counts: s, onDropped: variants && ((e) => variants.settled(e)) }),
    ...(robots ? [new RobotsStage({ robots, fates, frontier, counts: s, onCrawlDelay })] : []),
    new FetchStage({
      fetcher: p.fetcher, prerequisites: p.sideFetcher, store: p.store, refetch: Boolean(o.refetch), retryLater, maxTries: DEFAULTS.maxRetries + 1, maxRetryBackoffMs: DEFAULTS.maxRetryBackoffMs,
      fates, frontier, counts: s, signal: o.signal,
    }),
    // An origin's robots.txt handed out ahead of its URLs ends here, archived and read.
    ...(robots ? [new PrerequisiteStage({
      robots, archive: { warc: p.warc, store: fates.store, cycleId: o.cycleId }, frontier, onCrawlDelay,
      sitemaps: o.sitemaps ? { fromRobots: new RobotsSitemaps(seedOrigins(o)), asked: p.sitemaps, scope, store: p.store, refetch: Boolean(o.refetch) } : undefined,
    })] : []),
    new RedirectStage({ warc: p.warc, store: fates.store, fates, scope, refetch: Boolean(o.refetch), cycleId: o.cycleId }),
    new CaptureStage({ ctx: p.ctx, hostRow: (host) => p.hosts.row(host), counts: s, isFeed: p.ldes && ((url) => p.ldes!.isPage(url)) }),
    ...(variants ? [variants.stage] : []),
    ...(driver ? [new LearnStage(driver, scope)] : []),
    // Before the links: a stream's page is read for its relations and members, not crawled for links.
    ...(p.ldes ? [new LdesStage(p.ldes, { maxQuads: o.maxTriples ?? 5_000_000, loadDocument: p.ctx.loadDocument })] : []),
    // A query-driven crawl follows what its query chooses, not every link (page requisites still are fetched).
    new LinksStage({ scope, frontier, sitemaps: p.sitemaps, noFollow: Boolean(o.noFollow || driver?.choosesLinks), vocabularies: o.vocabularies !== false, counts: s, pageRequisites: Boolean(o.pageRequisites) }),
    new StoreStage(p.store, scope, (doc) => p.done.push(doc)),
  ];
}

/**
 * The crawl's frontier. The breadth-first frontier holds a bounded number of queued URLs in memory and
 * spills the rest to disk (src/frontier/spill.ts); importance orderings re-rank every queued URL as the
 * crawl learns, in memory.
 */
function createFrontier(o: CrawlOptions, driver: QueryDriver | undefined, timing: Timing): { frontier: Frontier & SideClock; spill?: ReturnType<typeof openFrontierSpill> } {
  const breadthFirst = !driver?.policy && (!o.order || o.order === 'bfs');
  const frontierMemory = o.frontierMemory ?? DEFAULTS.frontierMemory;
  const spill = breadthFirst && Number.isFinite(frontierMemory) ? openFrontierSpill(o.dataDir) : undefined;
  const frontier: Frontier & SideClock = driver?.policy ? new OrderedFrontier(driver.policy, timing)
    : breadthFirst ? new HostQueues(timing, spill && { maxEntries: frontierMemory, spill: spill.spill })
    : new OrderedFrontier(createOrderingPolicy(o.order as OrderingName, { query: o.query }), timing);
  return { frontier, spill };
}

/**
 * A bounded frontier's robots.txt answers in memory: those of the origins it may hold there and those in flight, the
 * rest in its spill with the origins parked there (without it, a crawl of many hosts kept one for every host).
 */
function robotsMemory(o: CrawlOptions, store: RobotsStore | undefined): RobotsOptions['memory'] {
  return store && { maxOrigins: (o.frontierMemory ?? DEFAULTS.frontierMemory) + (o.concurrency ?? DEFAULTS.concurrency), store };
}

/** The frontier's memory, for the summary (CrawlSummary.frontier): the breadth-first frontier's only. */
export function frontierFigures(frontier: Frontier): CrawlSummary['frontier'] {
  return frontier instanceof HostQueues ? { peakInMemory: frontier.peakMemoryEntries, spilled: frontier.spilledEntries } : undefined;
}

/**
 * Queues again what the store (or a worker's round) has queued; whether there was any (the summary's
 * `resumed`). Everything the store knows is seen.
 */
async function queueKnown(o: RoundOptions, store: CrawlStore, scope: ScopeStage, seen: SeenSet): Promise<boolean> {
  let resumed = false;
  if (o.round) {
    // A worker's round: its hosts' queued URLs, read by the worker, not every URL of the shared store.
    // Queued in the store: fetched this round whether or not an earlier round saw it.
    for (const d of o.round.queued) scope.requeue(d.url, d.host, d.depth);
    resumed = o.round.queued.length > 0;
  } else {
    // Resume: everything the store knows is seen; what it still has queued goes back in the frontier.
    let known = 0;
    for await (const page of store.documentUrlPages()) {
      for (const u of page) seen.addIfNewSync(u);
      known += page.length;
    }
    // (A downloader given its exact list of URLs does not resume anything else.)
    if (known > 0 && !o.noFollow) {
      const queued = await store.queuedDocuments();
      resumed = true;
      for (const d of queued) if (!o.queueHost || o.queueHost(d.host)) scope.requeue(d.url, d.host, d.depth);
    }
  }
  // The address policy changed: what it refused before is taken up again (a re-crawl cycle finds its
  // refused URLs still due by itself).
  if (o.allowPrivate && !o.round && !o.noFollow) {
    const refused = [...new Set((await store.fates({ reasons: ['refused-address'], limit: 1_000_000 })).map((e) => e.url))];
    for (const d of await store.getDocuments(refused)) {
      if (d.state !== 'skipped' || (o.queueHost && !o.queueHost(d.host))) continue;
      await store.updateDocument(d.url, { state: 'queued' });
      scope.requeue(d.url, d.host, d.depth);
    }
  }
  return resumed;
}

/** What capturing a document needs besides the document: where it goes, its JSON-LD contexts, its proofs. */
function captureContext(o: CrawlOptions, p: {
  sideFetcher: Fetcher; robots: RobotsCache | undefined; timing: Timing; warc: ArchiveWriter; fates: Fates; clock: Politeness;
}): { ctx: CaptureContext; trustCounts: Partial<Record<Verdict, number>> } {
  const { sideFetcher: fetcher, robots, timing, warc, fates, clock: politeness } = p;
  // Remote JSON-LD contexts: polite, bounded per origin, retried, archived (src/crawler/contexts.ts).
  // They follow redirects in the fetcher, as JSON-LD document loaders do; their rows get reasons like captures.
  const loadDocument = new ContextLoader({ fetcher, robots, politeness, warc, store: fates.store, cycleId: o.cycleId, signal: o.signal }).load;
  const trustCounts: Partial<Record<Verdict, number>> = {};
  // Detached proofs (src/crawler/detached-proofs.ts): fetched like contexts, spaced from the document's request.
  const proofs = o.trust ? new ProofDocumentLoader({
    fetcher, robots, politeness, delayMs: timing.delayMs, warc, store: fates.store, cycleId: o.cycleId,
    loadDocument, signal: o.signal,
  }) : undefined;
  const vet = o.trust ? trustVetter(o.trust, Boolean(o.trustedOnly), trustCounts, (url, doc, time) => proofs!.load(url, doc, time)) : undefined;
  const ctx: CaptureContext = { store: fates.store, warc, mime: o.mime ?? [], maxQuads: o.maxTriples ?? 5_000_000, cycleId: o.cycleId, loadDocument, analysisBudget: o.analysisBudget, onVersion: o.onVersion, requisites: Boolean(o.pageRequisites), vet };
  return { ctx, trustCounts };
}

/** What the fetchers are told: the crawl's limits and its address policy. */
function fetchOptionsOf(o: CrawlOptions, userAgent: string) {
  return {
    userAgent,
    connectTimeoutMs: Math.min(10_000, o.timeoutMs ?? DEFAULTS.timeoutMs),
    headersTimeoutMs: o.timeoutMs ?? DEFAULTS.timeoutMs,
    totalTimeoutMs: 2 * (o.timeoutMs ?? DEFAULTS.timeoutMs),
    maxBodyBytes: o.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    maxInflatedBytes: 4 * (o.maxBodyBytes ?? DEFAULTS.maxBodyBytes),
    maxRedirects: MAX_REDIRECT_HOPS,
    allowPrivate: o.allowPrivate ?? false,
    allowAddresses: o.allowAddresses,
    proxy: o.proxy,
    connectionsPerOrigin: Math.max(o.perHost ?? DEFAULTS.perHost, 1),
    lookup: o.resolve ? staticLookup(o.resolve, systemLookup) : undefined, // --resolve adds to the system's names
  };
}

/** Per-host figures the crawl-time estimate needs next cycle: download time, errors, robots.txt. */
export class HostFigures {
  private readonly rows = new Map<string, HostRow>();

  row(host: string): HostRow {
    let h = this.rows.get(host);
    if (!h) this.rows.set(host, (h = { host, fetches: 0, errors: 0 }));
    return h;
  }

  /** Adds this crawl's figures to what the store has of each host. */
  async save(store: CrawlStore): Promise<void> {
    for (const h of this.rows.values()) {
      const old = await store.getHost(h.host);
      const fetches = (old?.fetches ?? 0) + h.fetches;
      const mean = old?.meanDownloadMs === undefined ? h.meanDownloadMs : h.meanDownloadMs === undefined ? old.meanDownloadMs : (old.meanDownloadMs * (old.fetches ?? 0) + h.meanDownloadMs * h.fetches) / Math.max(1, fetches);
      await store.putHost({ ...old, ...h, fetches, errors: (old?.errors ?? 0) + h.errors, meanDownloadMs: mean });
    }
  }
}

async function validate(o: CrawlOptions): Promise<void> {
  const positive = (v: number | undefined, option: string) => {
    if (v !== undefined && !(Number.isFinite(v) && v >= 0)) throw new OptionError(option, `must be a number ≥ 0, got ${v}`);
  };
  positive(o.depth, 'depth');
  positive(o.delayMs, 'delayMs');
  positive(o.maxDocs, 'maxDocs');
  positive(o.maxBytes, 'maxBytes');
  positive(o.maxTriples, 'maxTriples');
  positive(o.maxTimeMs, 'maxTimeMs');
  if (o.perHost !== undefined && !(o.perHost >= 1)) throw new OptionError('perHost', `must be at least 1, got ${o.perHost}`);
  // 0 would leave the bounded frontier no room for an origin it must keep: CLI users write 0 for no bound (Infinity).
  if (o.frontierMemory !== undefined && !(o.frontierMemory >= 1)) throw new OptionError('frontierMemory', `must be at least 1 (Infinity: no bound), got ${o.frontierMemory}`);
  if (o.concurrency !== undefined && !(o.concurrency >= 1)) throw new OptionError('concurrency', `must be at least 1, got ${o.concurrency}`);
  for (const s of o.seeds) if (!normalizeUrl(s)) throw new UserError(`seed '${s}' is not an http(s) URL`);
  for (const s of o.sitemapUrls ?? []) if (!normalizeUrl(s)) throw new UserError(`sitemap '${s}' is not an http(s) URL`);
  for (const s of o.ldes ?? []) if (!normalizeUrl(s)) throw new UserError(`--ldes '${s}' is not an http(s) URL: give the URL of a Linked Data Event Stream or of one of its views`);
  if (o.ldesSince !== undefined && !Number.isFinite(o.ldesSince)) throw new OptionError('ldesSince', `must be a time, got ${o.ldesSince}`);
  if (o.trustedOnly && !o.trust) throw new OptionError('trustedOnly', 'needs the keys to trust: give a trust list (--trust keys.txt)');
  if (o.order === 'query' && o.follow === undefined) throw new OptionError('order', "'query' ranks the IRIs a --follow query binds by the solutions they appear in: it needs a follow query");
  if (o.order && o.order !== 'query' && !isOrderingName(o.order)) throw new OptionError('order', `'${o.order}' is not one of ${ORDERING_NAMES.join(', ')}, query (with a follow query)`);
  if (o.order === 'similarity' && !o.query) throw new UserError('the similarity ordering needs a driving query: give its words (query option; --query on the command line)');
  await validateDrivingQueries(o);
  if (o.answer !== undefined && o.order && o.order !== 'bfs') throw new OptionError('answer', `orders the frontier by what each link can add to the answer: it cannot be combined with order ${o.order}`);
  if (o.followArchive && o.follow === undefined && o.until === undefined) throw new OptionError('followArchive', 'needs a follow or until query to run over the archive');
}

/**
 * The archive's latest versions as the starting knowledge of `--follow-archive`: the versioned index is
 * caught up with the crawl log first (src/versions/catch-up.ts), as `query` does.
 */
async function archiveKnowledge(dataDir: string, store: CrawlStore) {
  // A crawl into PostgreSQL reads the index kept in that database (pg-store.ts).
  const index = VersionIndex.open(dataDir, store, store instanceof PostgresStore ? store.url : undefined);
  try {
    await index.catchUp();
    // The documents' own data, as a query's default dataset has it: without the alternates of --variants.
    return materialise(index.archive, NOW, undefined, hiddenAlternates(index.archive, NOW)).store;
  } finally {
    await index.close();
  }
}
