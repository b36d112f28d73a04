/**
 * A crawl worker: one of several processes, on one or many machines, that share one schedule
 * through the store's host leases (src/store/worker-types.ts). The loop:
 *
 *   lease hosts → crawl their queued URLs (and fetch their due ones) in a round, renewing the
 *   leases every lease/3 → give back the hosts whose queue is empty → lease again …
 *
 * until nothing is left to do for `idleExitMs`. Only leased hosts are fetched here; a URL this
 * worker discovers on another host goes to the shared store only (the crawler's seen set in front,
 * so each is sent once), where the worker leasing that host finds it. One host is never fetched by
 * two workers at once, and a killed worker's hosts come free when its leases expire.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openCrawlSeen } from '../crawler/scratch-dirs.ts';
import { crawlRound, isStorageStop, storageStopOf, type CrawlOptions, type CrawlSummary } from '../crawler/crawl.ts';
import type { RoundOptions } from '../crawler/options.ts';
import type { DocumentRow, MetadataStore } from '../store/types.ts';
import type { SeenSet } from '../frontier/seen/index.ts';
import type { Partition, WorkerStore } from '../store/worker-types.ts';
import { checkPartition } from '../store/host-partition.ts';
import { hostOf, normalizeUrl } from '../frontier/normalize.ts';
import { UserError, isStorageFailure } from '../util/errors.ts';
import { OUTCOMES, zeroOutcomes, type Outcome } from '../vocabulary/outcomes.ts';
import { archiveScopedStore, checkArchiveId } from './archive-store.ts';
import { fetchDue } from './due.ts';
import { recoverOpenFiles } from '../archive/warc-writer.ts';

export interface WorkerOptions {
  store: WorkerStore;
  /** Unique among live workers: it owns the leases, and names the archive directory. */
  id?: string;
  /** This worker's root: its WARC files go to `<dataDir>/<id>/warc/…`. */
  dataDir: string;
  partition?: Partition;
  leaseMs?: number;
  maxHosts?: number;
  /** Exit after this long with nothing to do (no lease to take, none held by anyone); Infinity: never. */
  idleExitMs?: number;
  /** Longest crawl round: then finished hosts are given back and others leased. */
  roundMs?: number;
  /** Seed URLs put in the shared store before work starts (known ones are ignored). */
  seeds?: string[];
  /** How to fetch (politeness, limits, safety): the crawl options, `maxDocs` and `maxTimeMs` for the worker's whole life. */
  crawl?: Partial<CrawlOptions>;
  /** Graceful stop: no new fetches, fetches in flight are archived, leases are given back. */
  signal?: AbortSignal;
  onEvent?: (e: WorkerEvent) => void;
}

export type WorkerEvent =
  | { type: 'leased'; hosts: string[] }
  | { type: 'released'; host: string }
  | { type: 'lost'; hosts: string[] }
  | { type: 'round'; hosts: number; documents: number; totalDocuments: number }
  | { type: 'warning'; message: string };

export interface WorkerSummary {
  worker: string;
  /** Where this worker's WARC files are, and the prefix of their paths in the crawl log. */
  archiveDir: string;
  archivePrefix: string;
  partition: string;
  rounds: number;
  documents: number;
  new: number;
  changed: number;
  unchanged: number;
  errors: number;
  /** Every round's URLs in the one way of counting (src/vocabulary/outcomes.ts). */
  outcomes: Record<Outcome, number>;
  bytes: number;
  triples: number;
  hostsLeased: number;
  hostsReleased: number;
  leasesLost: number;
  durationMs: number;
  stoppedBy: 'idle' | 'signal' | 'max-docs' | 'max-time' | 'disk-space' | 'storage-error' | 'permission-denied' | 'database-unavailable';
  /** Why, for `disk-space`, `storage-error`, `permission-denied` and `database-unavailable`. */
  stopMessage?: string;
  /**
   * WARC files a previous run with this id left open (killed mid-crawl), repaired at start: cut back
   * to the last record the log points to and closed; `removed` held no logged record at all.
   */
  recovered: { repaired: string[]; removed: string[] };
}

export const WORKER_DEFAULTS = { leaseMs: 60_000, maxHosts: 8, idleExitMs: 5_000, roundMs: 60_000 } as const;

/** hostname-pid: unique among live processes, so two workers never share leases. */
export function defaultWorkerId(): string {
  return `${os.hostname().replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80)}-${process.pid}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The worker's settings, its defaults filled in and each checked. */
interface Settings {
  id: string;
  partition: Partition;
  leaseMs: number;
  maxHosts: number;
  idleExitMs: number;
  roundMs: number;
}

/**
 * Workers read no Linked Data Event Stream: a stream's members are archived in time order once its pages are read
 * (src/crawler/ldes/), so one process must read a whole stream, and workers share a crawl's hosts among processes
 * in rounds, none seeing a whole stream (nor when it has been read to its end).
 */
export function refuseStreams(crawl: Partial<Pick<CrawlOptions, 'ldes' | 'ldesSince'>> | undefined): void {
  if (crawl?.ldes?.length || crawl?.ldesSince !== undefined) {
    throw new UserError('worker does not read Linked Data Event Streams (--ldes): a stream is read by one process, which archives its members in time order. Read it with `datamonitor crawl --ldes URL`, or monitor it with `datamonitor add --ldes URL` and `datamonitor run`');
  }
}

function settingsOf(o: WorkerOptions): Settings {
  refuseStreams(o.crawl);
  const id = checkArchiveId(o.id ?? defaultWorkerId());
  const partition = o.partition ?? { index: 0, count: 1 };
  try {
    checkPartition(partition);
  } catch (e) {
    throw new UserError(`--partition: ${(e as Error).message}`);
  }
  const leaseMs = o.leaseMs ?? WORKER_DEFAULTS.leaseMs;
  const maxHosts = o.maxHosts ?? WORKER_DEFAULTS.maxHosts;
  const idleExitMs = o.idleExitMs ?? WORKER_DEFAULTS.idleExitMs;
  const roundMs = o.roundMs ?? WORKER_DEFAULTS.roundMs;
  if (!(leaseMs >= 1000)) throw new UserError(`--lease must be at least 1s, got ${leaseMs} ms`);
  if (!(maxHosts >= 1)) throw new UserError(`--max-hosts must be at least 1, got ${maxHosts}`);
  if (!(roundMs > 0)) throw new UserError(`--round must be positive, got ${roundMs} ms`);
  return { id, partition, leaseMs, maxHosts, idleExitMs, roundMs };
}

export async function runWorker(o: WorkerOptions): Promise<WorkerSummary> {
  const settings = settingsOf(o);
  const store = o.store;
  const archiveDir = path.join(o.dataDir, settings.id);
  fs.mkdirSync(archiveDir, { recursive: true });
  const scoped = archiveScopedStore(store, settings.id);
  await store.init();
  // Repair what a killed run left open now, not when this worker next gets work: a worker that
  // finds nothing to do (or runs out of disk first) must not leave unreadable files behind.
  const recovered = await recoverOpenFiles(archiveDir, (rels) => scoped.warcEnds(rels));
  const worker = new CrawlWorker(o, settings, archiveDir, scoped, recovered);
  if (o.seeds?.length) {
    const docs = [];
    for (const raw of o.seeds) {
      const url = normalizeUrl(raw);
      if (!url) throw new UserError(`seed '${raw}' is not an http(s) URL`);
      docs.push({ url, host: hostOf(url), depth: 0 });
    }
    await store.addDocuments(docs);
  }
  return worker.run();
}

/**
 * The hosts this worker holds a lease on. Renewal runs for the worker's whole life, also between
 * rounds. A host missing from the answer was taken over (this process stalled past its lease):
 * `onLost` stops fetching it at once.
 */
class Leases {
  /** A crawl round fetches exactly these. */
  readonly held = new Set<string>();
  private renewing = false;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly store: WorkerStore,
    private readonly s: Settings,
    private readonly counts: Pick<WorkerSummary, 'hostsLeased' | 'hostsReleased' | 'leasesLost'>,
    private readonly emit: (e: WorkerEvent) => void,
    private readonly onLost: () => void,
  ) {}

  startRenewing(): void {
    this.timer = setInterval(() => void this.renew(), Math.max(100, this.s.leaseMs / 3));
  }

  stopRenewing(): void {
    clearInterval(this.timer);
  }

  /** Leases free hosts of the partition, up to maxHosts held. */
  async take(): Promise<void> {
    const { id, partition, leaseMs, maxHosts } = this.s;
    if (this.held.size >= maxHosts) return;
    const got = await this.store.leaseHosts(id, partition, leaseMs, maxHosts - this.held.size);
    for (const l of got) this.held.add(l.host);
    if (got.length) {
      this.counts.hostsLeased += got.length;
      this.emit({ type: 'leased', hosts: got.map((l) => l.host) });
    }
  }

  /** Gives back the hosts with nothing left to fetch now. */
  async releaseFinished(): Promise<void> {
    const now = Date.now();
    for (const h of [...this.held]) if ((await this.store.hostDocuments(h, now, 1)).length === 0) await this.release(h);
  }

  /** Hands back what is left so that others need not wait for the leases to expire. */
  async releaseAll(): Promise<void> {
    for (const h of [...this.held]) await this.release(h).catch(() => undefined);
  }

  private async release(host: string): Promise<void> {
    this.held.delete(host);
    await this.store.releaseHost(this.s.id, host);
    this.counts.hostsReleased++;
    this.emit({ type: 'released', host });
  }

  private async renew(): Promise<void> {
    const { held, s } = this;
    if (this.renewing || held.size === 0) return;
    this.renewing = true;
    const asked = [...held];
    try {
      const still = new Set(await this.store.renewLease(s.id, asked, s.leaseMs));
      const lost = asked.filter((h) => !still.has(h) && held.delete(h));
      if (lost.length) {
        this.counts.leasesLost += lost.length;
        this.emit({ type: 'lost', hosts: lost });
        this.onLost();
      }
    } catch (e) {
      this.emit({ type: 'warning', message: `lease renewal failed (retrying every ${Math.round(s.leaseMs / 3000)} s): ${(e as Error).message}` });
    } finally {
      this.renewing = false;
    }
  }
}

/** One worker's life: lease, run a round over the leased hosts, give back the finished ones, until a stop. */
class CrawlWorker {
  private readonly s: WorkerSummary;
  private readonly t0 = Date.now();
  private readonly deadline: number;
  private readonly leases: Leases;
  private readonly emit: (e: WorkerEvent) => void;
  /** A round that ran out of disk ends the worker: leasing hosts again would only fail again. */
  private storageStop: { stoppedBy: 'disk-space' | 'storage-error' | 'permission-denied' | 'database-unavailable'; stopMessage?: string } | undefined;
  private drainRound: AbortController | undefined;
  private idleSince: number | undefined;

  constructor(
    private readonly o: WorkerOptions,
    private readonly settings: Settings,
    private readonly archiveDir: string,
    private readonly scoped: MetadataStore,
    recovered: WorkerSummary['recovered'],
  ) {
    const { id, partition } = settings;
    this.deadline = o.crawl?.maxTimeMs !== undefined ? this.t0 + o.crawl.maxTimeMs : Infinity;
    this.s = {
      worker: id, archiveDir, archivePrefix: `${id}/`, partition: `${partition.index}/${partition.count}`,
      rounds: 0, documents: 0, new: 0, changed: 0, unchanged: 0, errors: 0, outcomes: zeroOutcomes(), bytes: 0, triples: 0,
      hostsLeased: 0, hostsReleased: 0, leasesLost: 0, durationMs: 0, stoppedBy: 'idle', recovered,
    };
    this.emit = o.onEvent ?? (() => {});
    this.leases = new Leases(o.store, settings, this.s, this.emit, () => this.drainRound?.abort());
  }

  async run(): Promise<WorkerSummary> {
    const { o, s, leases } = this;
    const onStop = () => this.drainRound?.abort();
    o.signal?.addEventListener('abort', onStop);
    leases.startRenewing();
    // One seen set for the worker's life, filled from the store once: each round then reads only its
    // hosts' queued URLs. URLs other workers add later are not in it; the shared store ignores a URL
    // it already has, and a crawl skips one its store says was fetched, so that costs a write, no fetch.
    const seen = openCrawlSeen(this.archiveDir, o.crawl ?? {});
    const pollMs = Math.max(50, Math.min(1000, this.settings.leaseMs / 4, this.settings.idleExitMs));
    try {
      for await (const page of o.store.documentUrlPages()) for (const u of page) seen.seen.addIfNewSync(u);
      for (;;) {
        const stop = this.stopReason();
        if (stop) {
          s.stoppedBy = stop;
          break;
        }
        await leases.take();
        if (leases.held.size === 0) {
          if (await this.idleLongEnough()) break;
          await sleep(pollMs);
          continue;
        }
        this.idleSince = undefined;
        await this.runRound(seen.seen);
        await leases.releaseFinished();
      }
    } catch (e) {
      // The store's own statements (leases, reads) met what a round's would: stop the same way.
      if (!isStorageFailure(e)) throw e;
      ({ stoppedBy: s.stoppedBy, stopMessage: s.stopMessage } = storageStopOf(e, this.archiveDir));
    } finally {
      leases.stopRenewing();
      o.signal?.removeEventListener('abort', onStop);
      await leases.releaseAll();
      await seen.close();
      s.durationMs = Date.now() - this.t0;
    }
    return s;
  }

  private stopReason(): WorkerSummary['stoppedBy'] | undefined {
    const { o, s } = this;
    if (this.storageStop) {
      s.stopMessage = this.storageStop.stopMessage;
      return this.storageStop.stoppedBy;
    }
    if (o.signal?.aborted) return 'signal';
    if (o.crawl?.maxDocs !== undefined && s.documents >= o.crawl.maxDocs) return 'max-docs';
    if (Date.now() >= this.deadline) return 'max-time';
    return undefined;
  }

  private add(c: CrawlSummary): void {
    for (const k of ['documents', 'new', 'changed', 'unchanged', 'errors', 'bytes', 'triples'] as const) this.s[k] += c[k];
    for (const k of OUTCOMES) this.s.outcomes[k] += c.outcomes[k];
    if (isStorageStop(c.stoppedBy)) this.storageStop ??= { stoppedBy: c.stoppedBy, stopMessage: c.stopMessage };
  }

  private roundOptions(drain: AbortSignal): RoundOptions {
    const { o, s, deadline } = this;
    const held = this.leases.held;
    return {
      ...o.crawl,
      seeds: [],
      dataDir: this.archiveDir,
      store: this.scoped,
      queueHost: (h) => held.has(h),
      drain,
      maxDocs: o.crawl?.maxDocs === undefined ? undefined : o.crawl.maxDocs - s.documents,
      maxTimeMs: deadline === Infinity ? undefined : Math.max(0, deadline - Date.now()),
    };
  }

  /** Fetches the held hosts' due documents again, then crawls their queued URLs, for at most roundMs. */
  private async runRound(seen: SeenSet): Promise<void> {
    const { s, leases } = this;
    const drain = new AbortController();
    this.drainRound = drain;
    const timer = setTimeout(() => drain.abort(), this.settings.roundMs);
    const before = s.documents;
    try {
      const due: DocumentRow[] = [];
      const queued: DocumentRow[] = [];
      const now = Date.now();
      for (const h of leases.held) for (const d of await this.o.store.hostDocuments(h, now, 100_000)) (d.state === 'queued' ? queued : due).push(d);
      if (due.length && !drain.signal.aborted) this.add(await fetchDue(due, this.scoped, this.roundOptions(drain.signal)));
      if (!drain.signal.aborted && !this.storageStop) this.add(await crawlRound({ ...this.roundOptions(drain.signal), round: { queued, seen } }).run());
    } finally {
      clearTimeout(timer);
      this.drainRound = undefined;
    }
    s.rounds++;
    this.emit({ type: 'round', hosts: leases.held.size, documents: s.documents - before, totalDocuments: s.documents });
  }

  /** Nothing to lease, nothing held: is someone else still at work, or work still waiting? */
  private async idleLongEnough(): Promise<boolean> {
    const { store } = this.o;
    const { id, idleExitMs, leaseMs } = this.settings;
    const now = Date.now();
    if ((await store.activeLeases(now)).some((l) => l.worker !== id)) {
      this.idleSince = undefined; // another worker may still discover URLs of our hosts, or die
      return false;
    }
    this.idleSince ??= now;
    // Work that is queued but not leasable yet (another partition's host, free for less than a
    // lease period) becomes ours within one lease period: wait that long before giving up.
    const waiting = (await store.countDocuments('queued')) > 0 || (await store.dueDocuments(now, 1)).length > 0;
    return now - this.idleSince >= idleExitMs + (waiting ? leaseMs : 0);
  }
}
