/** What the store's two kinds of PostgreSQL connection (sync-pg-thread.ts, async-pg.ts) set up alike. */
import pg from 'pg';
import { createHash } from 'node:crypto';

const parseInt8 = (v: string) => Number(v);

/**
 * A client's configuration: the schema as search_path, commits not waiting for the disk, read-only when
 * asked; int8 columns as numbers (every id and time of the store is below 2^53).
 */
export function clientConfig(connectionString: string, schema: string | undefined, readonly: boolean): pg.ClientConfig {
  return {
    connectionString,
    options: `${schema ? `-c search_path=${schema} ` : ''}-c synchronous_commit=off${readonly ? ' -c default_transaction_read_only=on' : ''}`,
    types: { getTypeParser: ((oid: number, format?: string) => (oid === 20 ? parseInt8 : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser },
  };
}

/**
 * Named (server-side prepared) statements of one connection, by their text: the first PREPARED_TEXTS
 * distinct texts asked for. The server keeps each one's plan (a generic plan after five runs), which
 * saves the planning that a selective read of the partitioned quads table spends most of its time in
 * (about 3 ms against 0.3 ms of execution). Never dropped, so bounded: texts past the bound are planned
 * each time, as unnamed statements are.
 */
const PREPARED_TEXTS = 100;

export class PreparedNames {
  private readonly names = new Map<string, string>();

  /** The statement as node-postgres takes it: by name when it is kept prepared, else its text. */
  query(sql: string, prepared: boolean | undefined): string | { name: string; text: string } {
    if (!prepared) return sql;
    let name = this.names.get(sql);
    if (name === undefined && this.names.size < PREPARED_TEXTS) this.names.set(sql, (name = `dm_${createHash('sha256').update(sql).digest('base64url').slice(0, 20)}`));
    return name === undefined ? sql : { name, text: sql };
  }
}
