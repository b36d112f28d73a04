import fs from 'node:fs';
import { createHttpFetcher, staticLookup, systemLookup, RobotsCache, buildUserAgent, reportingSent, type RobotsVerdict } from '../fetch/index.ts';
import type { Fetcher } from '../fetch/types.ts';
import type { HostRow } from '../store/types.ts';
import { openStore } from '../store/index.ts';
import { WarcWriter, recoverOpenFiles, type ArchiveWriter } from '../archive/warc-writer.ts';
import { WarcWriterThread } from '../archive/warc-writer-thread.ts';
import { HostQueues } from '../frontier/host-queues.ts';
import { OrderedFrontier } from '../frontier/ordered-frontier.ts';
import type { Frontier, FrontierEntry } from '../frontier/types.ts';
import { createOrderingPolicy, isOrderingName, ORDERING_NAMES, type OrderingName } from '../frontier/order/index.ts';
import { normalizeUrl, originOf } from '../frontier/normalize.ts';
import type { DeferredOrigin } from '../frontier/politeness.ts';
import { openCrawlSeen, openFrontierSpill } from './scratch-dirs.ts';
import { OptionError, UserError, isStorageFailure } from '../util/errors.ts';
import { defaultLog } from '../util/log.ts';
import { freeBytes } from '../util/disk.ts';
import { formatBytes, plural } from '../util/units.ts';
import type { CapturedDocument, CaptureContext } from './capture.ts';
import { CrawlSitemaps, sitemapsToRead } from './sitemaps.ts';
import { ContextLoader, OriginSpacing } from './contexts.ts';
import { DEFAULTS, type CrawlOptions, type CrawlStore } from './options.ts';
import { filtersOf } from './banner.ts';
import type { Reason } from './reasons.ts';
import { newJob, runChain, type Job, type Stage } from './stages/types.ts';
import { Fates } from './stages/fates.ts';
import { ScopeStage } from './stages/scope.ts';
import { PolitenessStage } from './stages/politeness.ts';
import { RobotsStage, robotsFate } from './stages/robots.ts';
import { FetchStage } from './stages/fetch.ts';
import { CaptureStage } from './stages/capture.ts';
import { MAX_REDIRECT_HOPS, RedirectStage } from './stages/redirect.ts';
import { LinksStage } from './stages/links.ts';
import { StoreStage } from './stages/store.ts';
import { LearnStage } from './stages/learn.ts';
import { trustVetter } from '../trust/vet.ts';
import { ProofDocumentLoader } from './detached-proofs.ts';
import type { Verdict } from '../trust/proof.ts';
import { ArchiveRecall, QueryDriver, validateDrivingQueries, type QueryDrivenSummary } from './follow/index.ts';
import { VersionIndex } from '../query/version-index.ts';
import { Variants, zeroVariants, type VariantsSummary } from './variants/stage.ts';
import { PostgresStore } from '../store/postgres.ts';
import { materialise, NOW } from '../query/sparql.ts';

export type { CrawlOptions, CrawlStore } from './options.ts';
export type { CapturedDocument } from './capture.ts';

export interface CrawlSummary {
  documents: number;
  triples: number;
  bytes: number;
  errors: number;
  durationMs: number;
  changed: number;
  unchanged: number;
  new: number;
  /** URLs skipped: disallowed by robots.txt, kept out by a filter (each URL once), dropped with a failing origin. */
  skipped: { robots: number; filtered: number; hostFailing: number };
  /** How many URLs met each fate (src/crawler/reasons.ts): every crawl-log row, and each filtered URL once. */
  reasons: Record<Reason, number>;
  /** With `trust`: how many documents got each verdict (src/trust/proof.ts). */
  trust?: Partial<Record<Verdict, number>>;
  /** Sitemaps fetched and read, and the URLs they listed (in scope; before the seen test and the filters). */
  sitemaps: { read: number; urls: number };
  queued: number;
  hosts: number;
  /**
   * The breadth-first frontier's memory (`frontierMemory`): the most queued URLs it held in memory at once, and
   * how many went to its spill on disk (an origin's entries, or a whole origin's; an entry parked twice counts twice).
   * Absent for importance orderings, which keep every URL in memory.
   */
  frontier?: { peakInMemory: number; spilled: number };
  /**
   * What ended the crawl before its frontier was empty: a traffic limit, a signal, too little free
   * disk space (`minFreeBytes`), or the archive's storage failing (disk full, I/O error). After the
   * last two the URLs not archived stay queued: free space and run the same crawl again to resume.
   */
  stoppedBy?: 'max-docs' | 'max-bytes' | 'max-triples' | 'max-time' | 'signal' | 'disk-space' | 'storage-error' | 'answered';
  /** Why, for `disk-space`, `storage-error` and `answered`, in words. */
  stopMessage?: string;
  /** Set when there were seeds and not one of them could be had (each failed or was refused): nothing to crawl from. */
  allSeedsFailed?: boolean;
  resumed: boolean;
  dataDir: string;
  /** A query-driven crawl (--follow, --until, --answer): what its queries cost and found. */
  query?: QueryDrivenSummary;
  /** With `variants`: the other representations of the documents, fetched, archived and compared. */
  variants?: VariantsSummary;
}

export interface CrawlProgress {
  documents: number;
  queued: number;
  errors: number;
  triples: number;
  bytes: number;
  elapsedMs: number;
  /** Set while nothing is in flight and every queued origin waits on a back-off or deferral (until when, why). */
  deferred?: DeferredOrigin[];
}

/**
 * A crawl: iterate it to receive each captured document as it is archived (seed 003's producer and
 * consumer), then read `summary`. Stopping iteration early stops the crawl cleanly.
 */
export class Crawl implements AsyncIterable<CapturedDocument> {
  summary: CrawlSummary | undefined;
  private started = false;
  private progressListeners: Array<(p: CrawlProgress) => void> = [];

  constructor(readonly options: CrawlOptions) {}

  onProgress(fn: (p: CrawlProgress) => void): this {
    this.progressListeners.push(fn);
    return this;
  }

  /** Runs the crawl to its end without looking at the documents; returns the summary. */
  async run(): Promise<CrawlSummary> {
    for await (const _ of this) {
      // consume
    }
    return this.summary as CrawlSummary;
  }

  [Symbol.asyncIterator](): AsyncIterator<CapturedDocument> {
    if (this.started) throw new Error('a Crawl can be iterated once');
    this.started = true;
    return runCrawl(this.options, (s) => (this.summary = s), (p) => this.progressListeners.forEach((f) => f(p)));
  }
}

/** Starts a crawl (nothing happens until it is iterated or run). */
export function crawl(options: CrawlOptions): Crawl {
  return new Crawl(options);
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
  if (o.concurrency !== undefined && !(o.concurrency >= 1)) throw new OptionError('concurrency', `must be at least 1, got ${o.concurrency}`);
  for (const s of o.seeds) if (!normalizeUrl(s)) throw new UserError(`seed '${s}' is not an http(s) URL`);
  for (const s of o.sitemapUrls ?? []) if (!normalizeUrl(s)) throw new UserError(`sitemap '${s}' is not an http(s) URL`);
  if (o.trustedOnly && !o.trust) throw new OptionError('trustedOnly', 'needs the keys to trust: give a trust list (--trust keys.txt)');
  if (o.order === 'query' && o.follow === undefined) throw new OptionError('order', "'query' ranks the IRIs a --follow query binds by the solutions they appear in: it needs a follow query");
  if (o.order && o.order !== 'query' && !isOrderingName(o.order)) throw new OptionError('order', `'${o.order}' is not one of ${ORDERING_NAMES.join(', ')}, query (with a follow query)`);
  if (o.order === 'similarity' && !o.query) throw new UserError('the similarity ordering needs a driving query: give its words (query option; --query on the command line)');
  await validateDrivingQueries(o);
  if (o.answer !== undefined && o.order && o.order !== 'bfs') throw new OptionError('answer', `orders the frontier by what each link can add to the answer: it cannot be combined with order ${o.order}`);
  if (o.followArchive && o.follow === undefined && o.until === undefined) throw new OptionError('followArchive', 'needs a follow or until query to run over the archive');
}

async function* runCrawl(o: CrawlOptions, setSummary: (s: CrawlSummary) => void, progress: (p: CrawlProgress) => void): AsyncGenerator<CapturedDocument> {
  await validate(o);
  const t0 = Date.now();
  fs.mkdirSync(o.dataDir, { recursive: true });
  const store: CrawlStore = o.store ?? (await openStore(o.dataDir));
  const ownsStore = !o.store;
  await store.init();
  await recoverOpenFiles(o.dataDir, (rel) => store.warcEnd(rel));

  const filters = filtersOf(o);
  const userAgent = o.userAgent ?? buildUserAgent(o.contact);
  const fetchOptions = {
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
  // Pages follow no redirect inside the fetcher: the redirect stage archives each hop and queues its
  // target through the frontier (seen test, politeness). What a page needs on the side (robots.txt,
  // JSON-LD contexts) follows redirects in the fetcher, as RFC 9309 and JSON-LD loaders do.
  const fetcher: Fetcher = createHttpFetcher({ ...fetchOptions, maxRedirects: 0 });
  // Each side request counts towards its host's spacing from when it went out (page requests do so through the
  // frontier's release): robots.txt, a JSON-LD context, a proof document.
  const sideFetcher: Fetcher = reportingSent(createHttpFetcher(fetchOptions), (url, sentAt) => queues.noteRequest(originOf(url), sentAt));
  // Per-host figures the crawl-time estimate needs next cycle: download time, errors, robots.txt.
  const hostStats = new Map<string, HostRow>();
  const hostRow = (host: string): HostRow => {
    let h = hostStats.get(host);
    if (!h) hostStats.set(host, (h = { host, fetches: 0, errors: 0 }));
    return h;
  };
  const robots = o.robots === false ? undefined : new RobotsCache(sideFetcher, {
    userAgent,
    maxCrawlDelayMs: DEFAULTS.maxCrawlDelayMs,
    retries: o.robotsRetries ?? DEFAULTS.robotsRetries,
    retryDelayMs: o.robotsRetryDelayMs ?? DEFAULTS.robotsRetryDelayMs,
    maxWaitMs: o.maxWaitMs ?? DEFAULTS.maxWaitMs,
    // A robots.txt request is a request to the server: the next one waits the delay after it.
    onRequest: (origin, time) => queues.noteRequest(origin, time),
    onFetched: (host, status, text) => Object.assign(hostRow(host), { robotsStatus: status, robotsTxt: text, robotsFetchedAt: Date.now() }),
  });
  // WARC writing runs on a thread of its own, beside the crawl; a small fixed batch (a re-crawl
  // cycle's few URLs) stays inline, where a thread's start-up would cost more.
  const threaded = o.threads ?? !(o.noFollow && o.seeds.length < 200);
  const warc: ArchiveWriter = threaded ? new WarcWriterThread(o.dataDir) : new WarcWriter(o.dataDir);
  const timing = {
    delayMs: o.delayMs ?? DEFAULTS.delayMs, perHost: o.perHost ?? DEFAULTS.perHost,
    backoffBaseMs: o.backoffBaseMs ?? DEFAULTS.backoffBaseMs, maxBackoffMs: DEFAULTS.maxBackoffMs, maxWaitMs: o.maxWaitMs ?? DEFAULTS.maxWaitMs,
  };
  // Query-driven crawling (src/crawler/follow/): one store of what the crawl learns, for its queries.
  const driver = o.follow !== undefined || o.until !== undefined || o.answer !== undefined ? await QueryDriver.create({ ...o, followOrder: o.order === 'query' }, o.followArchive ? await archiveKnowledge(o.dataDir, store) : undefined) : undefined;
  // A second --answer is answered from the archive, re-fetching only what the re-crawl policy says is stale.
  driver?.useArchive(new ArchiveRecall(store, o.dataDir));
  // The breadth-first frontier holds a bounded number of queued URLs in memory and spills the rest to disk
  // (src/frontier/spill.ts); importance orderings re-rank every queued URL as the crawl learns, in memory.
  const breadthFirst = !driver?.policy && (!o.order || o.order === 'bfs');
  const frontierMemory = o.frontierMemory ?? DEFAULTS.frontierMemory;
  const spill = breadthFirst && Number.isFinite(frontierMemory) ? openFrontierSpill(o.dataDir) : undefined;
  const queues: Frontier = driver?.policy ? new OrderedFrontier(driver.policy, timing)
    : breadthFirst ? new HostQueues(timing, spill && { maxEntries: frontierMemory, spill: spill.spill })
    : new OrderedFrontier(createOrderingPolicy(o.order as OrderingName, { query: o.query }), timing);
  // The seen test (src/crawler/scratch-dirs.ts). A crawl rebuilds it from the store on every start,
  // because the store, not this cache, is the record of what is known; a worker's round is handed
  // the worker's own, which lives across its rounds.
  const ownSeen = o.round ? undefined : openCrawlSeen(o.dataDir, o);
  const seen = o.round?.seen ?? ownSeen!.seen;
  const trace = o.traceOut ? fs.createWriteStream(o.traceOut, { flags: 'a' }) : undefined;
  // The versioned store that `query`, `diff` and `serve` read is not written here: it is an index
  // derived from the archive, caught up by its readers (src/query/catch-up.ts). API users may still
  // watch each changed version through `onVersion`.
  const fates = new Fates(store, o.cycleId, o.log ?? defaultLog());
  // Remote JSON-LD contexts: polite, bounded per origin, retried, archived (src/crawler/contexts.ts).
  // They follow redirects in the fetcher, as JSON-LD document loaders do; their rows get reasons like captures.
  const loadDocument = new ContextLoader({ fetcher: sideFetcher, robots, delayMs: timing.delayMs, warc, store: fates.store, cycleId: o.cycleId, signal: o.signal }).load;
  const trustCounts: Partial<Record<Verdict, number>> = {};
  // Detached proofs (src/crawler/detached-proofs.ts): fetched like contexts, spaced from the document's request.
  const proofs = o.trust ? new ProofDocumentLoader({
    fetcher: sideFetcher, robots, politeness: new OriginSpacing(timing.delayMs), delayMs: timing.delayMs, warc, store: fates.store, cycleId: o.cycleId,
    loadDocument, signal: o.signal, onRequest: (origin, time) => queues.noteRequest(origin, time),
  }) : undefined;
  const vet = o.trust ? trustVetter(o.trust, Boolean(o.trustedOnly), trustCounts, (url, doc, time) => proofs!.load(url, doc, time)) : undefined;
  const ctx: CaptureContext = { store: fates.store, warc, mime: o.mime ?? [], maxQuads: o.maxTriples ?? 5_000_000, cycleId: o.cycleId, loadDocument, analysisBudget: o.analysisBudget, onVersion: o.onVersion, requisites: Boolean(o.pageRequisites), vet };

  const s: CrawlSummary = {
    documents: 0, triples: 0, bytes: 0, errors: 0, durationMs: 0, changed: 0, unchanged: 0, new: 0,
    skipped: { robots: 0, filtered: 0, hostFailing: 0 }, reasons: fates.counts, ...(vet ? { trust: trustCounts } : {}), queued: 0, hosts: 0, resumed: false, dataDir: o.dataDir, sitemaps: { read: 0, urls: 0 },
    ...(o.variants ? { variants: zeroVariants() } : {}),
  };

  if (driver) driver.onCut = (n) => fates.count('follow-cap', n);
  const scope = new ScopeStage(queues, seen, {
    filters, queueHost: o.queueHost, trace: trace ? (url) => trace.write(url + '\n') : undefined, onFiltered: (_url, reason) => fates.count(reason),
    onKnown: driver?.readsArchive ? (url, depth) => driver.known(url, depth) : undefined,
  });

  if (o.round) {
    // A worker's round: its hosts' queued URLs, read by the worker, not every URL of the shared store.
    // Queued in the store: fetched this round whether or not an earlier round saw it.
    for (const d of o.round.queued) scope.requeue(d.url, d.host, d.depth);
    s.resumed = o.round.queued.length > 0;
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
      s.resumed = true;
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
  // Every representation a server offers (src/crawler/variants/): requests that go through the same chain.
  const variants = o.variants ? new Variants({ scope, frontier: queues, warc, store: fates.store, ctx, counts: s as { bytes: number; variants: VariantsSummary }, refetch: Boolean(o.refetch), cycleId: o.cycleId }) : undefined;
  const sitemaps = new CrawlSitemaps(Boolean(o.sitemaps || o.sitemapUrls?.length));
  // A re-crawl fetches its seeds again even though the store knows them.
  for (const seed of [...o.seeds, ...(driver?.seeds ?? [])]) scope.offer(seed, 0, false, o.refetch);
  for (const url of await sitemapsToRead(o, robots)) {
    sitemaps.ask(url.href, url.hostWide);
    scope.offer(url.href, 0, false, o.refetch);
  }
  await scope.flush(store);

  const running = new Set<Promise<void>>();
  let stopReason: CrawlSummary['stoppedBy'];
  let storageFailed = false;
  const done: CapturedDocument[] = [];

  const minFree = o.minFreeBytes ?? DEFAULTS.minFreeBytes;
  let diskCheckedAt = 0;
  const diskLow = (): boolean => {
    if (minFree <= 0 || Date.now() - diskCheckedAt < 200) return false;
    diskCheckedAt = Date.now();
    const free = freeBytes(o.dataDir);
    if (free === undefined || free >= minFree) return false;
    s.stopMessage = `only ${formatBytes(free)} free on the file system of ${o.dataDir} (below the ${formatBytes(minFree)} --min-free-space): free some space, then run the same crawl again to resume`;
    return true;
  };
  const stopForStorage = (err: unknown): void => {
    if (!storageFailed) s.stopMessage = `the archive could not be written (${(err as Error).message}): free space or fix ${o.dataDir}, then run the same crawl again to resume`;
    storageFailed = true;
    stopReason = 'storage-error';
  };
  const limitHit = (): CrawlSummary['stoppedBy'] => {
    if (storageFailed) return 'storage-error';
    if (o.signal?.aborted || o.drain?.aborted) return 'signal';
    if (diskLow()) return 'disk-space';
    if (o.maxDocs !== undefined && s.documents + (variants?.negotiatedRequests ?? 0) + running.size >= o.maxDocs) return 'max-docs';
    if (o.maxBytes !== undefined && s.bytes >= o.maxBytes) return 'max-bytes';
    if (o.maxTriples !== undefined && s.triples >= o.maxTriples) return 'max-triples';
    if (o.maxTimeMs !== undefined && Date.now() - t0 >= o.maxTimeMs) return 'max-time';
    if (driver?.answered) return 'answered';
    return undefined;
  };

  // --max-docs counts the jobs in flight as documents to come; a job that ends without one (it only
  // fetched the origin's robots.txt, say) gives its place back, so that limit is looked at afresh.
  const recheck = (): CrawlSummary['stoppedBy'] => (stopReason === undefined || stopReason === 'max-docs' ? limitHit() : stopReason);

  const retryLater = (e: FrontierEntry): boolean => {
    if ((e.retries ?? 0) >= DEFAULTS.maxRetries) return false;
    scope.retry(e);
    return true;
  };

  // The chain every URL goes through, in order (src/crawler/stages/): the scope stage admitted it to
  // the frontier, whose politeness handed it out now.
  const stages: Stage[] = [
    ...(variants ? [variants.head] : []),
    new PolitenessStage({ frontier: queues, fates, maxFailures: DEFAULTS.maxHostFailures, counts: s, onDropped: variants && ((e) => variants.settled(e)) }),
    ...(robots ? [new RobotsStage({
      robots, fates, frontier: queues, counts: s,
      onCrawlDelay: (entry, ms) => {
        queues.setDelay(entry.origin, ms);
        hostRow(entry.host).crawlDelayMs = ms;
      },
    })] : []),
    new FetchStage({
      fetcher, store, refetch: Boolean(o.refetch), retryLater, maxTries: DEFAULTS.maxRetries + 1, maxRetryBackoffMs: DEFAULTS.maxRetryBackoffMs,
      fates, frontier: queues, counts: s, signal: o.signal,
    }),
    new RedirectStage({ warc, store: fates.store, fates, scope, refetch: Boolean(o.refetch), cycleId: o.cycleId }),
    new CaptureStage({ ctx, hostRow, counts: s }),
    ...(variants ? [variants.stage] : []),
    ...(driver ? [new LearnStage(driver, scope)] : []),
    // A query-driven crawl follows what its query chooses, not every link (page requisites still are fetched).
    new LinksStage({ scope, frontier: queues, sitemaps, noFollow: Boolean(o.noFollow || driver?.choosesLinks), vocabularies: o.vocabularies !== false, counts: s, pageRequisites: Boolean(o.pageRequisites) }),
    new StoreStage(store, scope, (doc) => done.push(doc)),
  ];
  // A URL whose origin's robots.txt is known to refuse it (or to be unavailable) leaves the frontier
  // without taking the origin's turn; its fate is recorded by the drain (pop cannot wait).
  const rejected: Array<[FrontierEntry, RobotsVerdict]> = [];
  const rejectByRobots = (e: FrontierEntry): boolean => {
    const verdict = robots?.peek(e.url);
    if (!verdict || !('unavailable' in verdict || ('allowed' in verdict && !verdict.allowed))) return false;
    rejected.push([e, verdict]);
    return true;
  };
  const onError = async (job: Job, err: unknown): Promise<void> => {
    if (isStorageFailure(err)) {
      // Not this page's fault: stop taking URLs, and leave this one queued for the resume.
      stopForStorage(err);
      return;
    }
    job.ok = false;
    s.errors++;
    await fates.record(job.entry.url, 'internal-error', `internal: ${(err as Error).message}`, 'failed').catch(() => undefined);
  };

  // The drain sleeps until something can change what it would do: a job ends, a host's delay runs
  // out, the crawl is stopped from outside, or its time limit comes. (Free disk space shrinks only
  // by jobs writing, and each job's end wakes the drain, which looks at it then.)
  let wake: (() => void) | undefined;
  // Counted, so that an event while the drain is not asleep (the consumer holding a yielded document) is not lost.
  let pokes = 0;
  const poke = () => {
    pokes++;
    wake?.();
  };
  o.signal?.addEventListener('abort', poke);
  o.drain?.addEventListener('abort', poke);
  const sleep = (untilMs: number | undefined): Promise<void> => new Promise<void>((resolve) => {
    const timer = untilMs === undefined ? undefined : setTimeout(resolve, Math.max(0, untilMs - Date.now()));
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  }).finally(() => (wake = undefined));

  const concurrency = o.concurrency ?? DEFAULTS.concurrency;
  let lastProgress = 0;
  try {
    for (;;) {
      const pokesSeen = pokes;
      stopReason = recheck();
      while (!stopReason && running.size < concurrency) {
        const e = queues.pop(Date.now(), rejectByRobots);
        if (!e) break;
        const job = runChain(stages, newJob(e), onError).finally(() => {
          running.delete(job);
          poke();
        });
        running.add(job);
        stopReason = recheck();
      }
      for (const [e, verdict] of rejected.splice(0)) {
        try {
          await robotsFate(fates, s, e, verdict);
          variants?.settled(e);
        } catch (err) {
          if (!isStorageFailure(err)) throw err;
          stopForStorage(err);
        }
      }
      while (done.length) yield done.shift() as CapturedDocument;
      // The driving queries run in batches (follow/schedule.ts), and always before the crawl would end
      // for want of URLs: only they can give a query-driven crawl more to fetch.
      if (driver?.recalling && !stopReason) {
        await driver.recallArchived(scope);
        await scope.flush(store);
        continue;
      }
      if (driver && !stopReason && driver.due(queues.size === 0)) {
        driver.evaluate(scope);
        await scope.flush(store);
        continue;
      }
      if (Date.now() - lastProgress > 200) {
        lastProgress = Date.now();
        const deferred = running.size === 0 && queues.size > 0 ? queues.deferred(Date.now()) : [];
        progress({ documents: s.documents, queued: queues.size, errors: s.errors, triples: s.triples, bytes: s.bytes, elapsedMs: Date.now() - t0, ...(deferred.length ? { deferred } : {}) });
      }
      if (running.size === 0 && (stopReason || queues.size === 0)) break;
      if (pokes !== pokesSeen) continue;
      const wakeAt: number[] = [];
      const next = queues.nextReadyAt();
      if (running.size < concurrency && next !== undefined && Number.isFinite(next)) wakeAt.push(next);
      if (o.maxTimeMs !== undefined) wakeAt.push(t0 + o.maxTimeMs);
      // Nothing in flight and no host due: only the clock can help, so look again soon rather than never.
      if (running.size === 0) wakeAt.push(Date.now() + 1_000);
      await sleep(wakeAt.length ? Math.min(...wakeAt) : undefined);
    }
  } finally {
    // An early `break` by the consumer lands here too: let running fetches finish and archive.
    await Promise.all(running);
    o.signal?.removeEventListener('abort', poke);
    o.drain?.removeEventListener('abort', poke);
    done.length = 0;
    // Each closing step runs even when the storage has failed, so the summary still comes back and the
    // resume finds a consistent archive (the WARC writer cuts what the committed log does not point to).
    const closing = async (step: () => Promise<unknown> | unknown): Promise<void> => {
      try {
        await step();
      } catch (err) {
        if (!isStorageFailure(err)) throw err;
        stopForStorage(err);
      }
    };
    await closing(() => warc.close());
    await closing(async () => {
      for (const h of hostStats.values()) {
        const old = await store.getHost(h.host);
        const fetches = (old?.fetches ?? 0) + h.fetches;
        const mean = old?.meanDownloadMs === undefined ? h.meanDownloadMs : h.meanDownloadMs === undefined ? old.meanDownloadMs : (old.meanDownloadMs * (old.fetches ?? 0) + h.meanDownloadMs * h.fetches) / Math.max(1, fetches);
        await store.putHost({ ...old, ...h, fetches, errors: (old?.errors ?? 0) + h.errors, meanDownloadMs: mean });
      }
      await store.flush();
    });
    // A round counts what is left of its own frontier: counting the shared store would grow with it.
    if (o.round) s.queued = queues.size;
    else await closing(async () => (s.queued = await store.countDocuments('queued')));
    s.skipped.filtered = scope.filtered;
    await closing(async () => {
      const seeds = [...new Set(o.seeds.map((u) => normalizeUrl(u)).filter((u): u is string => Boolean(u)))];
      if (seeds.length === 0 || stopReason) return;
      const rows = await store.getDocuments(seeds);
      if (rows.length === seeds.length && rows.every((d) => d.state === 'failed' || d.state === 'skipped')) s.allSeedsFailed = true;
    });
    s.hosts = queues.hostCount;
    if (queues instanceof HostQueues) s.frontier = { peakInMemory: queues.peakMemoryEntries, spilled: queues.spilledEntries };
    s.durationMs = Date.now() - t0;
    s.stoppedBy = stopReason;
    if (driver) {
      if (stopReason === 'answered') s.stopMessage = `the --until question was answered after ${plural(driver.stats.answeredAfter ?? 0, 'document')} learnt`;
      s.query = driver.finish();
      driver.close();
    }
    await fetcher.close();
    await sideFetcher.close();
    if (ownSeen) await closing(() => ownSeen.close());
    spill?.close();
    trace?.end();
    if (ownsStore) await closing(() => store.close());
    setSummary(s);
  }
}

/**
 * The archive's latest versions as the starting knowledge of `--follow-archive`: the versioned index is
 * caught up with the crawl log first (src/query/catch-up.ts), as `query` does.
 */
async function archiveKnowledge(dataDir: string, store: CrawlStore) {
  // A crawl into PostgreSQL reads the index kept in that database (pg/pg-version-store.ts).
  const index = VersionIndex.open(dataDir, store, store instanceof PostgresStore ? store.url : undefined);
  try {
    await index.catchUp();
    return materialise(index.archive, NOW).store;
  } finally {
    await index.close();
  }
}
