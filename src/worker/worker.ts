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
import { crawl, storageStopOf, type CrawlOptions, type CrawlSummary } from '../crawler/crawl.ts';
import type { DocumentRow } from '../store/types.ts';
import type { Partition, WorkerStore } from '../store/worker-types.ts';
import { checkPartition } from '../store/host-partition.ts';
import { hostOf, normalizeUrl } from '../frontier/normalize.ts';
import { UserError, isStorageFailure } from '../util/errors.ts';
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

export async function runWorker(o: WorkerOptions): Promise<WorkerSummary> {
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
  const emit = o.onEvent ?? (() => {});
  const store = o.store;
  const archiveDir = path.join(o.dataDir, id);
  fs.mkdirSync(archiveDir, { recursive: true });
  const scoped = archiveScopedStore(store, id);
  await store.init();
  // Repair what a killed run left open now, not when this worker next gets work: a worker that
  // finds nothing to do (or runs out of disk first) must not leave unreadable files behind.
  const recovered = await recoverOpenFiles(archiveDir, (rel) => scoped.warcEnd(rel));

  const t0 = Date.now();
  const deadline = o.crawl?.maxTimeMs !== undefined ? t0 + o.crawl.maxTimeMs : Infinity;
  const s: WorkerSummary = {
    worker: id, archiveDir, archivePrefix: `${id}/`, partition: `${partition.index}/${partition.count}`,
    rounds: 0, documents: 0, new: 0, changed: 0, unchanged: 0, errors: 0, bytes: 0, triples: 0,
    hostsLeased: 0, hostsReleased: 0, leasesLost: 0, durationMs: 0, stoppedBy: 'idle', recovered,
  };
  /** A round that ran out of disk ends the worker: leasing hosts again would only fail again. */
  let storageStop: { stoppedBy: 'disk-space' | 'storage-error' | 'permission-denied' | 'database-unavailable'; stopMessage?: string } | undefined;
  const add = (c: CrawlSummary) => {
    for (const k of ['documents', 'new', 'changed', 'unchanged', 'errors', 'bytes', 'triples'] as const) s[k] += c[k];
    if (c.stoppedBy === 'disk-space' || c.stoppedBy === 'storage-error' || c.stoppedBy === 'permission-denied' || c.stoppedBy === 'database-unavailable') storageStop ??= { stoppedBy: c.stoppedBy, stopMessage: c.stopMessage };
  };

  if (o.seeds?.length) {
    const docs = [];
    for (const raw of o.seeds) {
      const url = normalizeUrl(raw);
      if (!url) throw new UserError(`seed '${raw}' is not an http(s) URL`);
      docs.push({ url, host: hostOf(url), depth: 0 });
    }
    await store.addDocuments(docs);
  }

  /** The hosts this worker holds a lease on; a crawl round fetches exactly these. */
  const held = new Set<string>();
  let drainRound: AbortController | undefined;
  const stopReason = (): WorkerSummary['stoppedBy'] | undefined => {
    if (storageStop) {
      s.stopMessage = storageStop.stopMessage;
      return storageStop.stoppedBy;
    }
    if (o.signal?.aborted) return 'signal';
    if (o.crawl?.maxDocs !== undefined && s.documents >= o.crawl.maxDocs) return 'max-docs';
    if (Date.now() >= deadline) return 'max-time';
    return undefined;
  };
  const onStop = () => drainRound?.abort();
  o.signal?.addEventListener('abort', onStop);

  // Renewal runs for the worker's whole life, also between rounds. A host missing from the answer
  // was taken over (this process stalled past its lease): stop fetching it at once.
  let renewing = false;
  const renew = async () => {
    if (renewing || held.size === 0) return;
    renewing = true;
    const asked = [...held];
    try {
      const still = new Set(await store.renewLease(id, asked, leaseMs));
      const lost = asked.filter((h) => !still.has(h) && held.delete(h));
      if (lost.length) {
        s.leasesLost += lost.length;
        emit({ type: 'lost', hosts: lost });
        drainRound?.abort();
      }
    } catch (e) {
      emit({ type: 'warning', message: `lease renewal failed (retrying every ${Math.round(leaseMs / 3000)} s): ${(e as Error).message}` });
    } finally {
      renewing = false;
    }
  };
  const renewTimer = setInterval(() => void renew(), Math.max(100, leaseMs / 3));

  const roundOptions = (drain: AbortSignal): CrawlOptions => ({
    ...o.crawl,
    seeds: [],
    dataDir: archiveDir,
    store: scoped,
    queueHost: (h) => held.has(h),
    drain,
    maxDocs: o.crawl?.maxDocs === undefined ? undefined : o.crawl.maxDocs - s.documents,
    maxTimeMs: deadline === Infinity ? undefined : Math.max(0, deadline - Date.now()),
  });

  const runRound = async () => {
    const drain = new AbortController();
    drainRound = drain;
    const timer = setTimeout(() => drain.abort(), roundMs);
    const before = s.documents;
    try {
      const due: DocumentRow[] = [];
      const queued: DocumentRow[] = [];
      const now = Date.now();
      for (const h of held) for (const d of await store.hostDocuments(h, now, 100_000)) (d.state === 'queued' ? queued : due).push(d);
      if (due.length && !drain.signal.aborted) add(await fetchDue(due, scoped, roundOptions(drain.signal)));
      if (!drain.signal.aborted && !storageStop) add(await crawl({ ...roundOptions(drain.signal), round: { queued, seen: seen.seen } }).run());
    } finally {
      clearTimeout(timer);
      drainRound = undefined;
    }
    s.rounds++;
    emit({ type: 'round', hosts: held.size, documents: s.documents - before, totalDocuments: s.documents });
  };

  const release = async (host: string) => {
    held.delete(host);
    await store.releaseHost(id, host);
    s.hostsReleased++;
    emit({ type: 'released', host });
  };

  /** Nothing to lease, nothing held: is someone else still at work, or work still waiting? */
  const pollMs = Math.max(50, Math.min(1000, leaseMs / 4, idleExitMs));
  let idleSince: number | undefined;
  const idleLongEnough = async (): Promise<boolean> => {
    const now = Date.now();
    if ((await store.activeLeases(now)).some((l) => l.worker !== id)) {
      idleSince = undefined; // another worker may still discover URLs of our hosts, or die
      return false;
    }
    idleSince ??= now;
    // Work that is queued but not leasable yet (another partition's host, free for less than a
    // lease period) becomes ours within one lease period: wait that long before giving up.
    const waiting = (await store.countDocuments('queued')) > 0 || (await store.dueDocuments(now, 1)).length > 0;
    return now - idleSince >= idleExitMs + (waiting ? leaseMs : 0);
  };

  // One seen set for the worker's life, filled from the store once: each round then reads only its
  // hosts' queued URLs. URLs other workers add later are not in it; the shared store ignores a URL
  // it already has, and a crawl skips one its store says was fetched, so that costs a write, no fetch.
  const seen = openCrawlSeen(archiveDir, o.crawl ?? {});
  try {
    for await (const page of store.documentUrlPages()) for (const u of page) seen.seen.addIfNewSync(u);
    for (;;) {
      const stop = stopReason();
      if (stop) {
        s.stoppedBy = stop;
        break;
      }
      if (held.size < maxHosts) {
        const got = await store.leaseHosts(id, partition, leaseMs, maxHosts - held.size);
        for (const l of got) held.add(l.host);
        if (got.length) {
          s.hostsLeased += got.length;
          emit({ type: 'leased', hosts: got.map((l) => l.host) });
        }
      }
      if (held.size === 0) {
        if (await idleLongEnough()) break;
        await sleep(pollMs);
        continue;
      }
      idleSince = undefined;
      await runRound();
      const now = Date.now();
      for (const h of [...held]) if ((await store.hostDocuments(h, now, 1)).length === 0) await release(h);
    }
  } catch (e) {
    // The store's own statements (leases, reads) met what a round's would: stop the same way.
    if (!isStorageFailure(e)) throw e;
    ({ stoppedBy: s.stoppedBy, stopMessage: s.stopMessage } = storageStopOf(e, archiveDir));
  } finally {
    clearInterval(renewTimer);
    o.signal?.removeEventListener('abort', onStop);
    // Hand back what is left so that others need not wait for the leases to expire.
    for (const h of [...held]) await release(h).catch(() => undefined);
    await seen.close();
    s.durationMs = Date.now() - t0;
  }
  return s;
}
