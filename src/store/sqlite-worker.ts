/**
 * Host leases on the embedded store, for several worker processes on one machine sharing one
 * SQLite file (and for running the worker tests without PostgreSQL). SQLite has no row locks and
 * no SKIP LOCKED: each lease operation is one IMMEDIATE transaction, which takes the database's
 * single write lock, so two leasers simply run one after the other. The rules are PostgresStore's.
 */
import { SqliteStore } from './sqlite.ts';
import type { DocumentRow } from './types.ts';
import type { HostLease, Partition, WorkerStore } from './worker-types.ts';
import { DOCUMENT_COLS, fromRow, MONITORED, QUEUED } from './schema.ts';
import { LEASE_DDL, checkPartition, hostHash, newHosts, partitionSql } from './host-partition.ts';

export class SqliteWorkerStore extends SqliteStore implements WorkerStore {
  private registered = new Set<string>();

  override async init(): Promise<void> {
    await super.init();
    // Additive and idempotent, so the file stays readable by a plain SqliteStore.
    for (const sql of LEASE_DDL) this.db.exec(sql);
    // Documents a plain store added (`crawl --data` seeding the file) have hosts no lease row names yet:
    // without one, no worker would ever lease them.
    const unregistered = this.db.prepare('SELECT DISTINCT host FROM documents WHERE host NOT IN (SELECT host FROM host_leases)').pluck().all() as string[];
    if (unregistered.length) {
      const insert = this.db.prepare('INSERT INTO host_leases (host, hash, worker, expires_at) VALUES (?, ?, NULL, ?) ON CONFLICT (host) DO NOTHING');
      const now = Date.now();
      this.db.transaction(() => {
        for (const h of unregistered) insert.run(h, hostHash(h), now);
      })();
    }
  }

  override async addDocuments(docs: Pick<DocumentRow, 'url' | 'host' | 'depth'>[], opts?: { monitored?: boolean; strategy?: string; nextFetch?: number }): Promise<number> {
    const added = await super.addDocuments(docs, opts);
    const hosts = newHosts(docs, this.registered);
    if (hosts.length) {
      // Inside the batch transaction addDocuments opened: the hosts commit with their documents.
      const insert = this.db.prepare('INSERT INTO host_leases (host, hash, worker, expires_at) VALUES (?, ?, NULL, ?) ON CONFLICT (host) DO NOTHING');
      const now = Date.now();
      for (const h of hosts) insert.run(h, hostHash(h), now);
      for (const h of hosts) this.registered.add(h);
    }
    return added;
  }

  /** Runs fn in its own IMMEDIATE transaction, after committing the open write batch. */
  private async exclusive<T>(fn: () => T): Promise<T> {
    await this.flush();
    return this.db.transaction(fn).immediate();
  }

  async leaseHosts(workerId: string, partition: Partition, leaseMs: number, maxHosts: number, now = Date.now()): Promise<HostLease[]> {
    checkPartition(partition);
    if (maxHosts <= 0) return [];
    const own = partitionSql('hash', 'CAST(@count AS INTEGER)', 'CAST(@index AS INTEGER)');
    return this.exclusive(() => {
      const hosts = this.db.prepare(
        `SELECT host FROM host_leases h
         WHERE expires_at <= @now AND (${own} OR worker IS NOT NULL OR expires_at <= @now - @lease)
           AND (EXISTS (SELECT 1 FROM documents d WHERE d.host = h.host AND d.${QUEUED})
             OR EXISTS (SELECT 1 FROM documents d WHERE d.host = h.host AND d.${MONITORED} AND d.next_fetch <= @now))
         ORDER BY (${own}) DESC, expires_at, host LIMIT @max`,
      ).pluck().all({ now, count: partition.count, index: partition.index, lease: leaseMs, max: maxHosts }) as string[];
      const take = this.db.prepare('UPDATE host_leases SET worker = ?, expires_at = ? WHERE host = ?');
      for (const h of hosts) take.run(workerId, now + leaseMs, h);
      return hosts.sort().map((host) => ({ host, worker: workerId, expiresAt: now + leaseMs }));
    });
  }

  async renewLease(workerId: string, hosts: string[], leaseMs: number, now = Date.now()): Promise<string[]> {
    return this.exclusive(() => {
      const renew = this.db.prepare('UPDATE host_leases SET expires_at = ? WHERE worker = ? AND host = ?');
      return hosts.filter((h) => renew.run(now + leaseMs, workerId, h).changes > 0).sort();
    });
  }

  async releaseHost(workerId: string, host: string, now = Date.now()): Promise<void> {
    await this.exclusive(() => this.db.prepare('UPDATE host_leases SET worker = NULL, expires_at = ? WHERE host = ? AND worker = ?').run(now, host, workerId));
  }

  async hostDocuments(host: string, now: number, limit: number): Promise<DocumentRow[]> {
    const rows = this.db.prepare(
      // Two arms, not one OR: SQLite reaches a partial index (schema.ts PARTIAL_INDEXES) from a whole WHERE only.
      `SELECT * FROM (SELECT * FROM documents WHERE host = @host AND ${QUEUED}
         UNION SELECT * FROM documents WHERE host = @host AND ${MONITORED} AND next_fetch <= @now)
       ORDER BY depth, COALESCE(next_fetch, first_seen), url LIMIT @limit`,
    ).all({ host, now, limit });
    return rows.map((r) => fromRow(DOCUMENT_COLS, r as Record<string, unknown>));
  }

  async activeLeases(now = Date.now()): Promise<HostLease[]> {
    const rows = this.db.prepare('SELECT host, worker, expires_at FROM host_leases WHERE worker IS NOT NULL AND expires_at > ? ORDER BY host').all(now) as { host: string; worker: string; expires_at: number }[];
    return rows.map((r) => ({ host: r.host, worker: r.worker, expiresAt: Number(r.expires_at) }));
  }
}
