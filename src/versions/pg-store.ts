import { VersionStore } from './store.ts';
import { PgVersionDialect } from './pg-dialect.ts';

export { prefetchStatements } from './pg-dialect.ts';
export { QUAD_PARTITIONS } from './pg-schema.ts';

/**
 * The versioned store in PostgreSQL: store.ts over pg-dialect.ts, the
 * same rows with the same ids as the SQLite store, shared by every reader of one crawl database instead
 * of rebuilt by each.
 */
export class PgVersionArchive extends VersionStore {
  private readonly pg: PgVersionDialect;
  /** Set: a PostgreSQL store reads the mark of alternates with its generation. */
  declare readonly mayHoldAlternates: () => boolean;

  /** `readAheadConnection: false`: a selective query's read-ahead goes through the connection thread too (one connection, four wake-ups). */
  constructor(url: string, opts: { readonly?: boolean; partitions?: number; readAheadConnection?: boolean } = {}) {
    const dialect = new PgVersionDialect(url, opts);
    super(dialect);
    this.pg = dialect;
  }

  /**
   * Whether this session may write the store: false when opened read-only, or when the database user
   * has only SELECT on its tables, or the server is a read-only standby.
   */
  get writable(): boolean {
    return this.pg.writable;
  }

  /** Calls to the server so far, through either connection: what a query costs beyond its SQL. */
  get roundTrips(): number {
    return this.pg.db.roundTrips + this.pg.readerCalls;
  }

  /** Of roundTrips, those through the connection thread (src/util/sync-pg.ts), each four wake-ups, not two. */
  get threadCalls(): number {
    return this.pg.db.roundTrips;
  }

  /** Waits for the last transaction's commit (writeTransaction does not); throws its error. */
  settle(): void {
    this.pg.db.settle();
  }
}
