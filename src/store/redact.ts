import { UserError } from '../util/errors.ts';

// What a postgres:// URL says, apart from postgres.ts: that module loads pg (~200 ms of CPU, most
// of it pg's own modules), and what only opens SQLite (a CLI query, the query thread) must not pay it.

/** The connection URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/**
 * Splits the datamonitor-only `schema` parameter off a postgres:// URL: the tables live in that
 * schema (via search_path), so several archives, or tests, share one database without meeting.
 */
export function parsePostgresUrl(url: string): { connectionString: string; schema?: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UserError(`--db '${redactUrl(url)}' is not a valid URL; write it like postgres://user@host:5432/database`);
  }
  const schema = u.searchParams.get('schema') ?? undefined;
  u.searchParams.delete('schema');
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new UserError(`schema '${schema}' in --db must be letters, digits and _ (at most 63), not starting with a digit`);
  }
  return { connectionString: u.toString(), schema };
}
