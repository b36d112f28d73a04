/**
 * The drain: runs an assembled crawl (assembly.ts). It takes URLs from the frontier while the limits
 * allow and the concurrency has room, starts each through the chain, hands the archived documents to
 * the consumer, sleeps until something can change what it would do, and closes the crawl in order.
 */
import type { RobotsVerdict } from '../fetch/index.ts';
import type { FrontierEntry } from '../frontier/types.ts';
import { normalizeUrl } from '../frontier/normalize.ts';
import { isStorageFailure, permissionMessage, storageExitCode } from '../util/errors.ts';
import { EXIT } from '../util/exit-codes.ts';
import { freeBytes } from '../util/disk.ts';
import { formatBytes, plural } from '../util/units.ts';
import type { CapturedDocument } from './capture.ts';
import { DEFAULTS } from './options.ts';
import { newJob, runChain, type Job } from './stages/types.ts';
import { robotsFate } from './stages/robots.ts';
import { prerequisiteOf, settlePrerequisite } from './stages/prerequisite.ts';
import { frontierFigures, type CrawlAssembly } from './assembly.ts';
import type { CrawlProgress, CrawlSummary } from './crawl.ts';

type StopReason = CrawlSummary['stoppedBy'];

export class Drain {
  private readonly running = new Set<Promise<void>>();
  private stopReason: StopReason;
  private storageStop: StorageStop['stoppedBy'] | undefined;
  /** URLs the frontier let go because their origin's robots.txt refuses them: their fates are recorded here, as pop cannot wait. */
  private readonly rejected: Array<[FrontierEntry, RobotsVerdict]> = [];
  private wake: (() => void) | undefined;
  // Counted, so that an event while the drain is not asleep (the consumer holding a yielded document) is not lost.
  private pokes = 0;
  private diskCheckedAt = 0;
  private lastProgress = 0;
  private readonly concurrency: number;

  constructor(private readonly crawl: CrawlAssembly, private readonly progress: (p: CrawlProgress) => void) {
    this.concurrency = crawl.o.concurrency ?? DEFAULTS.concurrency;
  }

  /** Yields each archived document; once over (or stopped by the consumer), closes the crawl and gives its summary to `setSummary`. */
  async *run(setSummary: (s: CrawlSummary) => void): AsyncGenerator<CapturedDocument> {
    const { o, frontier, driver, scope, store, stages, done } = this.crawl;
    o.signal?.addEventListener('abort', this.poke);
    o.drain?.addEventListener('abort', this.poke);
    try {
      for (;;) {
        const pokesSeen = this.pokes;
        this.stopReason = this.recheck();
        while (!this.stopReason && this.running.size < this.concurrency) {
          const e = frontier.pop(Date.now(), this.rejectByRobots);
          if (!e) break;
          const entry = prerequisiteOf(e, this.crawl.robots, frontier) ?? e;
          const job = runChain(stages, newJob(entry), this.onError).finally(() => {
            settlePrerequisite(entry, this.crawl.robots);
            this.running.delete(job);
            this.poke();
          });
          this.running.add(job);
          this.stopReason = this.recheck();
        }
        await this.settleRejected();
        while (done.length) yield done.shift() as CapturedDocument;
        // The driving queries run in batches (follow/schedule.ts), and always before the crawl would end
        // for want of URLs: only they can give a query-driven crawl more to fetch.
        if (driver?.recalling && !this.stopReason) {
          await driver.recallArchived(scope);
          await scope.flush(store);
          continue;
        }
        if (driver && !this.stopReason && driver.due(frontier.size === 0)) {
          driver.evaluate(scope);
          await scope.flush(store);
          continue;
        }
        this.reportProgress();
        if (this.running.size === 0 && (this.stopReason || frontier.size === 0)) break;
        if (this.pokes !== pokesSeen) continue;
        await this.sleep(this.wakeAt());
      }
    } finally {
      // An early `break` by the consumer lands here too: let running fetches finish and archive.
      await Promise.all(this.running);
      o.signal?.removeEventListener('abort', this.poke);
      o.drain?.removeEventListener('abort', this.poke);
      done.length = 0;
      setSummary(await this.close());
    }
  }

  private limitHit(): StopReason {
    const { o, summary: s, variants, driver } = this.crawl;
    if (this.storageStop) return this.storageStop;
    if (o.signal?.aborted || o.drain?.aborted) return 'signal';
    if (this.diskLow()) return 'disk-space';
    if (o.maxDocs !== undefined && s.documents + (variants?.negotiatedRequests ?? 0) + this.running.size >= o.maxDocs) return 'max-docs';
    if (o.maxBytes !== undefined && s.bytes >= o.maxBytes) return 'max-bytes';
    if (o.maxTriples !== undefined && s.triples >= o.maxTriples) return 'max-triples';
    if (o.maxTimeMs !== undefined && Date.now() - this.crawl.startedAt >= o.maxTimeMs) return 'max-time';
    if (driver?.answered) return 'answered';
    return undefined;
  }

  // --max-docs counts the jobs in flight as documents to come; a job that ends without one (it only
  // fetched the origin's robots.txt, say) gives its place back, so that limit is looked at afresh.
  private recheck(): StopReason {
    return this.stopReason === undefined || this.stopReason === 'max-docs' ? this.limitHit() : this.stopReason;
  }

  private diskLow(): boolean {
    const { o, summary: s } = this.crawl;
    const minFree = o.minFreeBytes ?? DEFAULTS.minFreeBytes;
    if (minFree <= 0 || Date.now() - this.diskCheckedAt < 200) return false;
    this.diskCheckedAt = Date.now();
    const free = freeBytes(o.dataDir);
    if (free === undefined || free >= minFree) return false;
    s.stopMessage = `only ${formatBytes(free)} free on the file system of ${o.dataDir} (below the ${formatBytes(minFree)} --min-free-space): free some space, then run the same crawl again to resume`;
    return true;
  }

  private stopForStorage(err: unknown): void {
    if (!this.storageStop) ({ stoppedBy: this.storageStop, stopMessage: this.crawl.summary.stopMessage } = storageStopOf(err, this.crawl.o.dataDir));
    this.stopReason = this.storageStop;
  }

  // A URL whose origin's robots.txt is known to refuse it (or to be unavailable) leaves the frontier
  // without taking the origin's turn; its fate is recorded by the drain (pop cannot wait).
  private readonly rejectByRobots = (e: FrontierEntry): boolean => {
    const verdict = this.crawl.robots?.peek(e.url);
    if (!verdict || !('unavailable' in verdict || ('allowed' in verdict && !verdict.allowed))) return false;
    this.rejected.push([e, verdict]);
    return true;
  };

  private async settleRejected(): Promise<void> {
    const { fates, summary, variants } = this.crawl;
    for (const [e, verdict] of this.rejected.splice(0)) {
      try {
        await robotsFate(fates, summary, e, verdict);
        variants?.settled(e);
      } catch (err) {
        if (!isStorageFailure(err)) throw err;
        this.stopForStorage(err);
      }
    }
  }

  private readonly onError = async (job: Job, err: unknown): Promise<void> => {
    if (isStorageFailure(err)) {
      // Not this page's fault: stop taking URLs, and leave this one queued for the resume.
      this.stopForStorage(err);
      return;
    }
    job.ok = false;
    this.crawl.summary.errors++;
    await this.crawl.fates.record(job.entry.url, 'internal-error', `internal: ${(err as Error).message}`, 'failed').catch(() => undefined);
  };

  private reportProgress(): void {
    if (Date.now() - this.lastProgress <= 200) return;
    this.lastProgress = Date.now();
    const { frontier, summary: s, startedAt } = this.crawl;
    const deferred = this.running.size === 0 && frontier.size > 0 ? frontier.deferred(Date.now()) : [];
    this.progress({ documents: s.documents, queued: frontier.size, errors: s.errors, triples: s.triples, bytes: s.bytes, elapsedMs: Date.now() - startedAt, ...(deferred.length ? { deferred } : {}) });
  }

  // The drain sleeps until something can change what it would do: a job ends, a host's delay runs
  // out, the crawl is stopped from outside, or its time limit comes. (Free disk space shrinks only
  // by jobs writing, and each job's end wakes the drain, which looks at it then.)
  private readonly poke = (): void => {
    this.pokes++;
    this.wake?.();
  };

  private wakeAt(): number | undefined {
    const { o, frontier, startedAt } = this.crawl;
    const wakeAt: number[] = [];
    const next = frontier.nextReadyAt();
    if (this.running.size < this.concurrency && next !== undefined && Number.isFinite(next)) wakeAt.push(next);
    if (o.maxTimeMs !== undefined) wakeAt.push(startedAt + o.maxTimeMs);
    // Nothing in flight and no host due: only the clock can help, so look again soon rather than never.
    if (this.running.size === 0) wakeAt.push(Date.now() + 1_000);
    return wakeAt.length ? Math.min(...wakeAt) : undefined;
  }

  private sleep(untilMs: number | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = untilMs === undefined ? undefined : setTimeout(resolve, Math.max(0, untilMs - Date.now()));
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (this.wake = undefined));
  }

  // Each closing step runs even when the storage has failed, so the summary still comes back and the
  // resume finds a consistent archive (the WARC writer cuts what the committed log does not point to).
  private readonly closing = async (step: () => Promise<unknown> | unknown): Promise<void> => {
    try {
      await step();
    } catch (err) {
      if (!isStorageFailure(err)) throw err;
      this.stopForStorage(err);
    }
  };

  /** Closes the crawl in order: the archive, the store's figures, the summary, then what the crawl opened. */
  private async close(): Promise<CrawlSummary> {
    const c = this.crawl;
    await this.closing(() => c.warc.close());
    // A stream's members, once its pages are read to the end (LdesStreams.finish); after an early stop, those no unread page precedes.
    await this.closing(async () => {
      const documents = await c.ldes?.finish(this.stopReason !== undefined);
      if (documents?.size && c.o.onStreamDocuments) await c.o.onStreamDocuments([...documents]);
    });
    await this.closing(async () => {
      await c.hosts.save(c.store);
      await c.store.flush();
    });
    await this.summarise();
    await c.release(this.closing);
    return c.summary;
  }

  private async summarise(): Promise<void> {
    const { o, summary: s, store, frontier, scope, driver, startedAt } = this.crawl;
    // A round counts what is left of its own frontier: counting the shared store would grow with it.
    if (o.round) s.queued = frontier.size;
    else await this.closing(async () => (s.queued = await store.countDocuments('queued')));
    s.skipped.filtered = scope.filtered;
    await this.closing(async () => {
      const seeds = [...new Set(o.seeds.map((u) => normalizeUrl(u)).filter((u): u is string => Boolean(u)))];
      if (seeds.length === 0 || this.stopReason) return;
      const rows = await store.getDocuments(seeds);
      if (rows.length === seeds.length && rows.every((d) => d.state === 'failed' || d.state === 'skipped')) s.allSeedsFailed = true;
    });
    s.hosts = frontier.hostCount;
    const figures = frontierFigures(frontier);
    if (figures) s.frontier = figures;
    s.durationMs = Date.now() - startedAt;
    s.stoppedBy = this.stopReason;
    // The limit bounds a run, not the crawl a resume goes on with: the summary says so where it was hit.
    if (this.stopReason === 'max-docs' && o.maxDocs !== undefined) {
      s.stopMessage = `${plural(o.maxDocs, 'document')} in this run (--max-docs counts per run: the same crawl run again resumes and fetches up to ${o.maxDocs} more)`;
    }
    if (driver) {
      if (this.stopReason === 'answered') s.stopMessage = `the --until question was answered after ${plural(driver.stats.answeredAfter ?? 0, 'document')} learnt`;
      s.query = driver.finish();
    }
  }
}

/** How a crawl or worker that met a storage failure (isStorageFailure) says why it stopped. */
export function storageStopOf(err: unknown, dataDir: string): StorageStop {
  const message = (err as Error).message;
  const code = storageExitCode(err);
  if (code === EXIT.tempFail) return { stoppedBy: 'database-unavailable', stopMessage: `${message}: the URLs not archived stay queued; run the same command again once the database answers, to resume` };
  if (code === EXIT.noPermission) return { stoppedBy: 'permission-denied', stopMessage: permissionMessage(err, dataDir, 'What was archived is kept and the URLs not archived stay queued') };
  return { stoppedBy: 'storage-error', stopMessage: `the archive could not be written (${message}): free space or fix ${dataDir}, then run the same crawl again to resume` };
}

export interface StorageStop {
  stoppedBy: 'storage-error' | 'permission-denied' | 'database-unavailable';
  stopMessage: string;
}

/** Each stop of a crawl or worker whose storage failed (too little disk, or storageStopOf), and its exit status. */
export type StorageStopReason = 'disk-space' | StorageStop['stoppedBy'];
const STORAGE_STOP_EXIT: Record<StorageStopReason, number> = {
  'disk-space': EXIT.ioError, 'storage-error': EXIT.ioError, 'permission-denied': EXIT.noPermission, 'database-unavailable': EXIT.tempFail,
};

/**
 * The exit status of a crawl or worker that stopped because the archive's storage failed, undefined for any
 * other stop: what is not archived stays queued, and the same command resumes once the storage is mended.
 */
export function storageStopExit(stoppedBy: string | undefined): number | undefined {
  return isStorageStop(stoppedBy) ? STORAGE_STOP_EXIT[stoppedBy] : undefined;
}

export function isStorageStop(stoppedBy: string | undefined): stoppedBy is StorageStopReason {
  return stoppedBy !== undefined && Object.hasOwn(STORAGE_STOP_EXIT, stoppedBy);
}
