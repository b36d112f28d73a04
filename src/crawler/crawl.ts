import fs from 'node:fs';
import path from 'node:path';
import { createHttpFetcher, staticLookup, RobotsCache, buildUserAgent } from '../fetch/index.ts';
import type { Fetcher } from '../fetch/types.ts';
import type { HostRow, MetadataStore } from '../store/types.ts';
import { openStore } from '../store/index.ts';
import { WarcWriter, recoverOpenFiles, type ArchiveWriter } from '../archive/warc-writer.ts';
import { WarcWriterThread } from '../archive/warc-writer-thread.ts';
import { HostQueues } from '../frontier/host-queues.ts';
import { OrderedFrontier } from '../frontier/ordered-frontier.ts';
import type { Frontier, FrontierEntry } from '../frontier/types.ts';
import { createOrderingPolicy, isOrderingName, ORDERING_NAMES, type OrderingName } from '../frontier/order/index.ts';
import { compilePatterns, rejectReason, type FilterOptions } from '../frontier/filters.ts';
import { hostOf, normalizeUrl } from '../frontier/normalize.ts';
import { openCrawlSeen } from './seen-dir.ts';
import { UserError, isStorageFailure } from '../util/errors.ts';
import { freeBytes } from '../util/disk.ts';
import { formatBytes } from '../util/units.ts';
import { capture, type CapturedDocument, type CaptureContext } from './capture.ts';
import { CrawlSitemaps, sitemapsToRead } from './sitemaps.ts';
import { DEFAULTS, type CrawlOptions } from './options.ts';

export type { CrawlOptions } from './options.ts';
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
  skipped: { robots: number; filtered: number; hostFailing: number };
  /** Sitemaps fetched and read, and the URLs they listed (in scope; before the seen test and the filters). */
  sitemaps: { read: number; urls: number };
  queued: number;
  hosts: number;
  /**
   * What ended the crawl before its frontier was empty: a traffic limit, a signal, too little free
   * disk space (`minFreeBytes`), or the archive's storage failing (disk full, I/O error). After the
   * last two the URLs not archived stay queued: free space and run the same crawl again to resume.
   */
  stoppedBy?: 'max-docs' | 'max-bytes' | 'max-triples' | 'max-time' | 'signal' | 'disk-space' | 'storage-error';
  /** Why, for `disk-space` and `storage-error`, in words. */
  stopMessage?: string;
  resumed: boolean;
  dataDir: string;
}

export interface CrawlProgress {
  documents: number;
  queued: number;
  errors: number;
  triples: number;
  bytes: number;
  elapsedMs: number;
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

function validate(o: CrawlOptions): void {
  const positive = (v: number | undefined, flag: string) => {
    if (v !== undefined && !(Number.isFinite(v) && v >= 0)) throw new UserError(`${flag} must be a number ≥ 0, got ${v}`);
  };
  positive(o.depth, '--depth');
  positive(o.delayMs, '--delay');
  positive(o.maxDocs, '--max-docs');
  positive(o.maxBytes, '--max-bytes');
  positive(o.maxTriples, '--max-triples');
  positive(o.maxTimeMs, '--max-time');
  if (o.perHost !== undefined && !(o.perHost >= 1)) throw new UserError(`--per-host must be at least 1, got ${o.perHost}`);
  if (o.concurrency !== undefined && !(o.concurrency >= 1)) throw new UserError(`--concurrency must be at least 1, got ${o.concurrency}`);
  for (const s of o.seeds) if (!normalizeUrl(s)) throw new UserError(`seed '${s}' is not an http(s) URL`);
  for (const s of o.sitemapUrls ?? []) if (!normalizeUrl(s)) throw new UserError(`--sitemap '${s}' is not an http(s) URL`);
  if (o.order && !isOrderingName(o.order)) throw new UserError(`--order '${o.order}' is not one of ${ORDERING_NAMES.join(', ')}`);
  if (o.order === 'similarity' && !o.query) throw new UserError('--order similarity needs --query "words" (the driving query)');
}

async function* runCrawl(o: CrawlOptions, setSummary: (s: CrawlSummary) => void, progress: (p: CrawlProgress) => void): AsyncGenerator<CapturedDocument> {
  validate(o);
  const t0 = Date.now();
  fs.mkdirSync(o.dataDir, { recursive: true });
  const store: MetadataStore = o.store ?? (await openStore(o.dataDir));
  const ownsStore = !o.store;
  await store.init();
  await recoverOpenFiles(o.dataDir, (rel) => store.warcEnd(rel));

  const filters: FilterOptions = {
    maxDepth: o.depth ?? DEFAULTS.depth,
    include: compilePatterns(o.include, '--include'),
    exclude: compilePatterns(o.exclude, '--exclude'),
    domains: o.domains ?? [],
  };
  const userAgent = o.userAgent ?? buildUserAgent(o.contact);
  const fetcher: Fetcher = createHttpFetcher({
    userAgent,
    connectTimeoutMs: Math.min(10_000, o.timeoutMs ?? DEFAULTS.timeoutMs),
    headersTimeoutMs: o.timeoutMs ?? DEFAULTS.timeoutMs,
    totalTimeoutMs: 2 * (o.timeoutMs ?? DEFAULTS.timeoutMs),
    maxBodyBytes: o.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    maxInflatedBytes: 4 * (o.maxBodyBytes ?? DEFAULTS.maxBodyBytes),
    maxRedirects: 5,
    allowPrivate: o.allowPrivate ?? false,
    proxy: o.proxy,
    connectionsPerOrigin: Math.max(o.perHost ?? DEFAULTS.perHost, 1),
    lookup: o.resolve ? staticLookup(o.resolve) : undefined,
  });
  // Per-host figures the crawl-time estimate needs next cycle: download time, errors, robots.txt.
  const hostStats = new Map<string, HostRow>();
  const hostRow = (host: string): HostRow => {
    let h = hostStats.get(host);
    if (!h) hostStats.set(host, (h = { host, fetches: 0, errors: 0 }));
    return h;
  };
  const robots = o.robots === false ? undefined : new RobotsCache(fetcher, {
    userAgent,
    maxCrawlDelayMs: DEFAULTS.maxCrawlDelayMs,
    onFetched: (host, status, text) => Object.assign(hostRow(host), { robotsStatus: status, robotsTxt: text, robotsFetchedAt: Date.now() }),
  });
  // WARC writing runs on a thread of its own, beside the crawl; a small fixed batch (a re-crawl
  // cycle's few URLs) stays inline, where a thread's start-up would cost more.
  const threaded = o.threads ?? !(o.noFollow && o.seeds.length < 200);
  const warc: ArchiveWriter = threaded ? new WarcWriterThread(o.dataDir) : new WarcWriter(o.dataDir);
  const timing = { delayMs: o.delayMs ?? DEFAULTS.delayMs, perHost: o.perHost ?? DEFAULTS.perHost };
  const queues: Frontier = !o.order || o.order === 'bfs' ? new HostQueues(timing) : new OrderedFrontier(createOrderingPolicy(o.order as OrderingName, { query: o.query }), timing);
  // The seen test (src/crawler/seen-dir.ts). A crawl rebuilds it from the store on every start,
  // because the store, not this cache, is the record of what is known; a worker's round is handed
  // the worker's own, which lives across its rounds.
  const ownSeen = o.round ? undefined : openCrawlSeen(o.dataDir, o);
  const seen = o.round?.seen ?? ownSeen!.seen;
  const trace = o.traceOut ? fs.createWriteStream(o.traceOut, { flags: 'a' }) : undefined;
  let seq = 0;

  const contexts = new Map<string, Promise<unknown>>();
  const loadDocument = (url: string): Promise<unknown> => {
    let p = contexts.get(url);
    if (!p) {
      if (contexts.size >= 100) return Promise.reject(new Error('too many JSON-LD remote contexts in this crawl'));
      // Contexts are fetched with the same fetcher (safety, proxy, limits) and robots.txt rules.
      p = (robots ? robots.check(url) : Promise.resolve({ allowed: true })).then((verdict) => {
        if (!('allowed' in verdict) || !verdict.allowed) throw new Error(`context ${url}: robots.txt does not allow it now`);
        return fetcher.fetch(url);
      }).then((out) => {
        if (!out.response || out.response.status !== 200) throw new Error(`context ${url}: ${out.error?.message ?? `HTTP ${out.response?.status}`}`);
        return JSON.parse(out.response.body.toString('utf8'));
      });
      contexts.set(url, p);
    }
    return p;
  };
  // The versioned store that `query`, `diff` and `serve` read is not written here: it is an index
  // derived from the archive, caught up by its readers (src/query/catch-up.ts). API users may still
  // watch each changed version through `onVersion`.
  const ctx: CaptureContext = { store, warc, mime: o.mime ?? [], maxQuads: o.maxTriples ?? 5_000_000, cycleId: o.cycleId, loadDocument, analysisBudget: o.analysisBudget, onVersion: o.onVersion };

  const s: CrawlSummary = {
    documents: 0, triples: 0, bytes: 0, errors: 0, durationMs: 0, changed: 0, unchanged: 0, new: 0,
    skipped: { robots: 0, filtered: 0, hostFailing: 0 }, queued: 0, hosts: 0, resumed: false, dataDir: o.dataDir, sitemaps: { read: 0, urls: 0 },
  };

  if (o.round) {
    // A worker's round: its hosts' queued URLs, read by the worker, not every URL of the shared store.
    for (const d of o.round.queued) {
      seen.addIfNewSync(d.url); // queued in the store: fetched this round whether or not an earlier round saw it
      queues.push({ url: d.url, host: d.host, depth: d.depth, key: seq++ });
    }
    s.resumed = o.round.queued.length > 0;
  } else {
    // Resume: everything the store knows is seen; what it still has queued goes back in the frontier.
    const known = await store.allDocumentUrls();
    for (const u of known) seen.addIfNewSync(u);
    // (A downloader given its exact list of URLs does not resume anything else.)
    if (known.length > 0 && !o.noFollow) {
      const queued = await store.queuedDocuments();
      s.resumed = true;
      for (const d of queued) if (!o.queueHost || o.queueHost(d.host)) queues.push({ url: d.url, host: d.host, depth: d.depth, key: seq++ });
    }
  }
  const newDocs: { url: string; host: string; depth: number }[] = [];
  const sitemaps = new CrawlSitemaps(Boolean(o.sitemaps || o.sitemapUrls?.length));
  const offer = (raw: string, depth: number, vocabulary: boolean, force = false): void => {
    const url = normalizeUrl(raw);
    if (!url) return;
    trace?.write(url + '\n');
    const host = hostOf(url);
    if (rejectReason(url, host, depth, filters, vocabulary)) return;
    if (!seen.addIfNewSync(url) && !force) return;
    newDocs.push({ url, host, depth });
    // Another worker's host: it goes to the shared store only, where that worker will find it.
    if (!o.queueHost || o.queueHost(host) || force) queues.push({ url, host, depth, key: seq++, vocabulary });
  };
  // A re-crawl fetches its seeds again even though the store knows them.
  for (const seed of o.seeds) offer(seed, 0, false, o.refetch);
  for (const url of await sitemapsToRead(o, robots)) {
    sitemaps.ask(url.href, url.hostWide);
    offer(url.href, 0, false, o.refetch);
  }
  await store.addDocuments(newDocs.splice(0));

  let running = 0;
  let stopReason: CrawlSummary['stoppedBy'];
  let storageFailed = false;
  let wake: (() => void) | undefined;
  const done: CapturedDocument[] = [];
  const follow = o.vocabularies !== false;

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
    if (o.maxDocs !== undefined && s.documents + running >= o.maxDocs) return 'max-docs';
    if (o.maxBytes !== undefined && s.bytes >= o.maxBytes) return 'max-bytes';
    if (o.maxTriples !== undefined && s.triples >= o.maxTriples) return 'max-triples';
    if (o.maxTimeMs !== undefined && Date.now() - t0 >= o.maxTimeMs) return 'max-time';
    return undefined;
  };

  const requeue = (e: FrontierEntry): boolean => {
    if ((e.retries ?? 0) >= DEFAULTS.maxRetries) return false;
    queues.push({ ...e, retries: (e.retries ?? 0) + 1 });
    return true;
  };

  const work = async (e: FrontierEntry): Promise<void> => {
    let notBefore: number | undefined;
    let startedAt: number | undefined;
    let ok = true;
    try {
      if (robots) {
        const verdict = await robots.check(e.url);
        if ('deferUntil' in verdict) {
          notBefore = verdict.deferUntil.getTime();
          if (!requeue(e)) {
            await store.logFetch({ url: e.url, time: Date.now(), status: 0, durationMs: 0, bytes: 0, change: 'error', error: `robots.txt unavailable: ${verdict.reason}`, triples: 0, cycleId: o.cycleId }, { state: 'failed' });
            s.errors++;
          }
          return;
        }
        if (verdict.crawlDelayMs) {
          queues.setDelay(e.host, verdict.crawlDelayMs);
          hostRow(e.host).crawlDelayMs = verdict.crawlDelayMs;
        }
        if (!verdict.allowed) {
          s.skipped.robots++;
          await store.logFetch({ url: e.url, time: Date.now(), status: 0, durationMs: 0, bytes: 0, change: 'error', error: 'robots.txt: disallowed', triples: 0, cycleId: o.cycleId }, { state: 'skipped' });
          return;
        }
      }
      const prev = await store.getDocument(e.url);
      // Fetched meanwhile as the target of a redirect: one-off crawls do not fetch it again.
      if (prev?.state === 'fetched' && !o.refetch) return;
      startedAt = Date.now();
      const outcome = await fetcher.fetch(e.url, prev?.checksum ? { etag: prev.etag, lastModified: prev.lastModified } : undefined, o.signal);
      if (outcome.retryAfter) {
        notBefore = outcome.retryAfter.getTime();
        if (requeue(e)) return;
      }
      // A server error is tried again later (the host backs off meanwhile); the last try is archived.
      if ((outcome.response?.status ?? 0) >= 500 && requeue(e)) {
        ok = false;
        return;
      }
      const doc = await capture(e.url, outcome, ctx, prev);
      ok = doc.status > 0 && doc.status < 500;
      const hs = hostRow(e.host);
      hs.fetches++;
      if (!ok) hs.errors++;
      else hs.meanDownloadMs = hs.meanDownloadMs === undefined ? doc.durationMs : 0.8 * hs.meanDownloadMs + 0.2 * doc.durationMs;
      s.documents += doc.status > 0 ? 1 : 0;
      s.triples += doc.quads.length;
      s.bytes += doc.bytes;
      if (doc.change === 'error') s.errors++;
      else s[doc.change]++;
      if (doc.finalUrl && doc.status > 0) {
        // The redirect target is archived now: known, and not to be fetched again by this crawl.
        const fin = normalizeUrl(doc.finalUrl);
        if (fin && fin !== e.url) {
          seen.addIfNewSync(fin);
          await store.addDocuments([{ url: fin, host: hostOf(fin), depth: e.depth }]);
          await store.updateDocument(fin, { state: 'fetched', lastFetched: doc.time });
        }
      }
      if (queues.onPageCrawled) {
        const links = [];
        for (const l of doc.links) {
          const u = normalizeUrl(l.url);
          if (u) links.push({ url: u, anchorText: l.anchorText, context: l.context });
        }
        queues.onPageCrawled({ url: e.url, links, text: doc.text });
      }
      if (doc.status === 200 && outcome.response && sitemaps.matches(e.url, outcome.response.body)) {
        const sm = sitemaps.read(e.url, doc.finalUrl ?? e.url, outcome.response.body, doc.mediaType);
        doc.sitemap = sm;
        s.sitemaps.read++;
        s.sitemaps.urls += sm.urls.length;
        // A re-crawl cycle (noFollow) only wants the lastmod hints: it schedules the listed URLs itself.
        if (!o.noFollow) for (const u of [...sm.urls, ...sm.sitemaps]) offer(u.loc, e.depth, false);
      }
      if (!o.noFollow) for (const link of doc.links) {
        const vocab = follow && link.kind === 'vocabulary';
        if (link.kind === 'vocabulary' && !follow) continue;
        offer(link.url, e.depth + 1, vocab);
      }
      if (newDocs.length) await store.addDocuments(newDocs.splice(0));
      done.push(doc);
    } catch (err) {
      if (isStorageFailure(err)) {
        // Not this page's fault: stop taking URLs, and leave this one queued for the resume.
        stopForStorage(err);
        return;
      }
      ok = false;
      s.errors++;
      await store.logFetch({ url: e.url, time: Date.now(), status: 0, durationMs: 0, bytes: 0, change: 'error', error: `internal: ${(err as Error).message}`, triples: 0, cycleId: o.cycleId }, { state: 'failed' }).catch(() => undefined);
    } finally {
      running--;
      queues.release(e.host, Date.now(), { ok, notBefore, startedAt });
      if (!ok && queues.failures(e.host) >= DEFAULTS.maxHostFailures) {
        for (const dropped of queues.drain(e.host)) {
          s.skipped.hostFailing++;
          await store.logFetch({ url: dropped.url, time: Date.now(), status: 0, durationMs: 0, bytes: 0, change: 'error', error: `host ${e.host} failed ${DEFAULTS.maxHostFailures} times in a row: skipped`, triples: 0, cycleId: o.cycleId }, { state: 'skipped' }).catch(() => undefined);
        }
      }
      wake?.();
    }
  };

  const concurrency = o.concurrency ?? DEFAULTS.concurrency;
  let lastProgress = 0;
  try {
    for (;;) {
      stopReason ??= limitHit();
      while (!stopReason && running < concurrency) {
        const e = queues.pop(Date.now());
        if (!e) break;
        running++;
        void work(e);
        stopReason ??= limitHit();
      }
      while (done.length) yield done.shift() as CapturedDocument;
      if (Date.now() - lastProgress > 200) {
        lastProgress = Date.now();
        progress({ documents: s.documents, queued: queues.size, errors: s.errors, triples: s.triples, bytes: s.bytes, elapsedMs: Date.now() - t0 });
      }
      if (running === 0 && (stopReason || queues.size === 0)) break;
      const next = queues.nextReadyAt();
      const waitMs = running < concurrency && next !== undefined ? Math.max(0, next - Date.now()) : 1_000;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(waitMs, 1_000));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    // An early `break` by the consumer lands here too: let running fetches finish and archive.
    while (running > 0) await new Promise((r) => setTimeout(r, 10));
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
    s.hosts = queues.hostCount;
    s.durationMs = Date.now() - t0;
    s.stoppedBy = stopReason;
    await fetcher.close();
    if (ownSeen) await closing(() => ownSeen.close());
    trace?.end();
    if (ownsStore) await closing(() => store.close());
    setSummary(s);
  }
}
