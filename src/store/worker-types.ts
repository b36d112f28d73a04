/**
 * What cooperating crawl workers need from the shared metadata store on top of MetadataStore:
 * host leases (LeaseStore). A worker fetches a host's URLs only while it holds the host's lease, so one host is
 * never fetched by two workers at once (politeness across machines), and a lease that is not
 * renewed expires, so the hosts of a killed worker are taken over.
 */
import type { DocumentRow, MetadataStore } from './types.ts';

/** This worker's share of the host space: hosts whose hash falls in slot `index` of `count`. */
export interface Partition {
  index: number;
  count: number;
}

export interface HostLease {
  host: string;
  worker: string;
  /** Epoch ms; the lease is void after this unless renewed. */
  expiresAt: number;
}

/** Host leases: which worker fetches which host now (src/worker/worker.ts). */
export interface LeaseStore {
  /**
   * Leases up to `maxHosts` hosts that have queued or due documents and that no live lease holds:
   * first hosts of this worker's partition, then hosts of other partitions whose holder let its
   * lease expire (a dead worker) or that nobody took for one lease period (a partition without a
   * live worker). Returns only the newly leased hosts. `now` defaults to this machine's clock:
   * workers' clocks must agree to well within `leaseMs`.
   */
  leaseHosts(workerId: string, partition: Partition, leaseMs: number, maxHosts: number, now?: number): Promise<HostLease[]>;
  /** Extends the leases this worker still holds; returns the hosts it still holds (stop fetching the others). */
  renewLease(workerId: string, hosts: string[], leaseMs: number, now?: number): Promise<string[]>;
  /** Gives a host back (its due URLs are done); a no-op when the worker no longer holds it. */
  releaseHost(workerId: string, host: string, now?: number): Promise<void>;
  /** A host's documents that are queued or due at `now`: the work a lease covers. */
  hostDocuments(host: string, now: number, limit: number): Promise<DocumentRow[]>;
  /** Every lease currently held (expiresAt > now), for monitoring and tests. */
  activeLeases(now?: number): Promise<HostLease[]>;
}

/** A metadata store that cooperating workers can share: the whole store and its leases. */
export interface WorkerStore extends MetadataStore, LeaseStore {}
