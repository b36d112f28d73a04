/**
 * Finding the PostgreSQL that tests and benchmarks run against, in one place: the server at
 * 127.0.0.1:5432, database `test` (trust auth), as DATAMONITOR_TEST_PG names it or as the first of
 * the users root and postgres that can connect. When none answers, PostgreSQL-backed tests skip
 * with a loud warning, unless DATAMONITOR_REQUIRE_PG=1 (CI), in which case they fail. Use it as
 *   const pgBase = await pgBaseUrl();
 *   describe.skipIf(!pgBase)('… on PostgreSQL', () => { … isolatedSchemaUrl(pgBase!) … dropSchema(url) … });
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';

const CANDIDATES = ['postgres://root@127.0.0.1:5432/test', 'postgres://postgres@127.0.0.1:5432/test'];

let probed: Promise<string | undefined> | undefined;

async function canConnect(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (e) {
    return (e as Error).message || String(e);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The base URL of the test database, or undefined (after a loud console.warn) when it is not
 * reachable. Throws instead when DATAMONITOR_REQUIRE_PG=1. Probes once per process.
 */
export function pgBaseUrl(): Promise<string | undefined> {
  probed ??= (async () => {
    const env = process.env.DATAMONITOR_TEST_PG;
    const errors: string[] = [];
    for (const url of env ? [env] : CANDIDATES) {
      const err = await canConnect(url);
      if (!err) return url;
      errors.push(`${url}: ${err}`);
    }
    const why = `PostgreSQL is not reachable (${errors.join('; ')})`;
    if (process.env.DATAMONITOR_REQUIRE_PG === '1') {
      throw new Error(`${why}, and DATAMONITOR_REQUIRE_PG=1 says PostgreSQL-backed tests must run. Start the server (.ci/run does) or set DATAMONITOR_TEST_PG.`);
    }
    console.warn(
      `\n${'!'.repeat(78)}\n!! SKIPPING PostgreSQL-backed tests: ${why}.\n!! Start PostgreSQL on 127.0.0.1:5432 with a database 'test', or set DATAMONITOR_TEST_PG;\n!! set DATAMONITOR_REQUIRE_PG=1 to make this a failure.\n${'!'.repeat(78)}\n`,
    );
    return undefined;
  })();
  return probed;
}

/** A URL for a fresh, uniquely named schema in the test database (created by the store's init). */
export function isolatedSchemaUrl(base: string, prefix = 'dm_test'): string {
  const u = new URL(base);
  u.searchParams.set('schema', `${prefix}_${randomBytes(6).toString('hex')}`);
  return u.toString();
}

/** Drops the schema a URL from isolatedSchemaUrl names, with everything in it. */
export async function dropSchema(url: string): Promise<void> {
  const u = new URL(url);
  const schema = u.searchParams.get('schema');
  if (!schema || !/^[A-Za-z0-9_]+$/.test(schema)) throw new Error(`dropSchema: ${url} has no schema parameter`);
  u.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: u.toString() });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
