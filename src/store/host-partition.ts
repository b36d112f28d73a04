/**
 * Host → partition, shared by the stores' lease queries and the workers. The hash is the high
 * 32 bits of the project's URL fingerprint of the host name, and the partition is
 * floor(hash * count / 2^32): the same value `partitionOf(url, count)` (src/frontier/seen) gives
 * for a URL on that host, and a formula SQL can evaluate on a stored hash with integer division.
 */
import { fingerprintPair } from '../frontier/seen/fingerprint.ts';
import type { Partition } from './worker-types.ts';

export function hostHash(host: string): number {
  return fingerprintPair(host)[0];
}

export function partitionOfHost(host: string, count: number): number {
  return Math.floor((hostHash(host) / 4294967296) * count);
}

export function checkPartition(p: Partition): void {
  if (!Number.isInteger(p.count) || p.count < 1 || !Number.isInteger(p.index) || p.index < 0 || p.index >= p.count) {
    throw new RangeError(`partition must have an integer count >= 1 and 0 <= index < count, got index ${p.index} of ${p.count}`);
  }
}

/** SQL for "the stored hash falls in partition (index of count)", with the two values as parameters. */
export function partitionSql(hashCol: string, count: string, index: string): string {
  return `((${hashCol} * ${count}) / 4294967296) = ${index}`;
}

/**
 * The lease table, the same in SQLite and PostgreSQL. `expires_at` is the lease end while a worker
 * holds the host, and the time it became free otherwise (registered or released, worker NULL), so
 * one column answers both "is it free" and "has it been free for a lease period".
 */
export const LEASE_DDL = [
  `CREATE TABLE IF NOT EXISTS host_leases (host TEXT PRIMARY KEY, hash BIGINT NOT NULL, worker TEXT, expires_at BIGINT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS host_leases_expires ON host_leases (expires_at)`,
  `CREATE INDEX IF NOT EXISTS documents_host ON documents (host)`,
];

/** The distinct hosts of a batch of documents that are not in `known`, sorted (a fixed lock order). */
export function newHosts(docs: { host: string }[], known: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const d of docs) if (!known.has(d.host)) out.add(d.host);
  return [...out].sort();
}
