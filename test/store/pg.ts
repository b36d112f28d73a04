/**
 * For tests: the PostgreSQL test database URL, or undefined when the PG half must skip (a loud
 * warning has been printed). Fails instead when DATAMONITOR_REQUIRE_PG=1. Use it as
 *   const pgBase = await pgBaseUrl();
 *   describe.skipIf(!pgBase)('… on PostgreSQL', () => { … isolatedSchemaUrl(pgBase!) … dropSchema(url) … });
 */
export { testPostgresUrl as pgBaseUrl, isolatedSchemaUrl, dropSchema } from '../../src/store/pg-test-util.ts';
