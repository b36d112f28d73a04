import Database from 'better-sqlite3';
import pg from 'pg';
import { parsePostgresUrl } from '../store/redact.ts';

/** A statement and its parameters, or a statement alone. */
export type Statement = string | [sql: string, params: unknown[]];

/**
 * Runs statements straight on a store's database, as an older datamonitor or a hand edit would leave it (tests
 * and benches that set a store up in a state its own API does not make): a `postgres://` URL's schema (its
 * `schema` parameter) or a SQLite file.
 */
export async function runOnStore(where: string, statements: Statement[]): Promise<void> {
  const split = (s: Statement): [string, unknown[]] => (typeof s === 'string' ? [s, []] : s);
  if (!/^postgres(ql)?:/.test(where)) {
    const db = new Database(where);
    try {
      for (const s of statements) {
        const [sql, params] = split(s);
        if (params.length) db.prepare(sql).run(...params);
        else db.exec(sql);
      }
    } finally {
      db.close();
    }
    return;
  }
  const { connectionString, schema } = parsePostgresUrl(where);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    if (schema) await client.query(`SET search_path TO ${client.escapeIdentifier(schema)}`);
    for (const s of statements) await client.query(...split(s));
  } finally {
    await client.end();
  }
}
