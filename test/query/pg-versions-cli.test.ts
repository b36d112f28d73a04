import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { queryCommand } from '../../src/cli/commands/query.ts';
import { buildServer } from '../../src/server/index.ts';
import { LiveIndex, PgVersionArchive, VERSIONS_FILE } from '../../src/query/index.ts';
import { SqliteStore } from '../../src/store/sqlite.ts';
import { PostgresStore } from '../../src/store/postgres.ts';
import { buildScaleArchive } from '../../src/testkit/scale-archive.ts';
import { linkedDataWeb } from '../../src/testkit/linked-data-web.ts';
import { pgBaseUrl, isolatedSchemaUrl, dropSchema } from '../store/pg.ts';

/**
 * `query --db postgres://…` and `serve --db postgres://…`: with the crawl log in PostgreSQL (as cooperating
 * workers leave it), the versioned index lives in the same database, built by the first reader and shared
 * by the next ones; no `versions.sqlite` is written, and the answers are those of the SQLite index.
 */
const pgBase = await pgBaseUrl();
const DOCS = 120;
const web = linkedDataWeb({ documents: DOCS, hosts: 10 });

describe.skipIf(!pgBase)('query and serve with --db postgres:// keep the versioned index in PostgreSQL', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-pgv-cli-'));
  const sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-pgv-cli-sqlite-'));
  const url = pgBase ? isolatedSchemaUrl(pgBase, 'dm_pgv_cli') : '';
  let logRows = 0;

  beforeAll(async () => {
    // A crawl's archive; its log moved into PostgreSQL row by row, as a worker would have written it.
    await buildScaleArchive({ dataDir: sqliteDir, documents: DOCS, hosts: 10 });
    for (const f of fs.readdirSync(sqliteDir)) if (f !== 'meta.sqlite' && !f.startsWith('meta.sqlite-')) fs.cpSync(path.join(sqliteDir, f), path.join(dataDir, f), { recursive: true });
    const from = new SqliteStore(path.join(sqliteDir, 'meta.sqlite'));
    await from.init();
    const to = new PostgresStore(url);
    await to.init();
    try {
      for (let since = 0; ;) {
        const rows = await from.log({ sinceId: since, limit: 500 });
        if (rows.length === 0) break;
        for (const { id: _id, ...e } of rows) await to.logFetch(e, {});
        since = rows.at(-1)!.id!;
        logRows += rows.length;
      }
    } finally {
      await from.close();
      await to.close();
    }
  }, 300_000);

  afterAll(async () => {
    if (pgBase) await dropSchema(url);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(sqliteDir, { recursive: true, force: true });
  });

  it('a live index (crawl --live-index with --db postgres://) builds the shared index in the database', async () => {
    const live = LiveIndex.start(dataDir, { db: url, intervalMs: 200 });
    const summary = await live.stop();
    expect(summary).toMatchObject({ rows: logRows, versions: DOCS + DOCS / 10, deletions: Math.ceil(DOCS / 100), failed: 0, lastLogId: logRows });
    expect(fs.existsSync(path.join(dataDir, VERSIONS_FILE))).toBe(false);
  }, 300_000);

  const query = `SELECT ?l WHERE { <${web.resource(7)}> <http://www.w3.org/2000/01/rdf-schema#label> ?l } ORDER BY ?l`;

  it('query reads the index in the database (catching up nothing twice), answers as the SQLite index does', async () => {
    const answer = await queryCommand(query, { data: dataDir, db: url, json: true });
    expect(JSON.parse(answer).results.bindings.map((b: { l: { value: string } }) => b.l.value)).toEqual(['Resource 7', 'Ressource 7']);
    expect(fs.existsSync(path.join(dataDir, VERSIONS_FILE))).toBe(false);
    const shared = new PgVersionArchive(url, { readonly: true });
    try {
      expect(shared.indexedLogId()).toBe(logRows);
      const versions = shared.stats().versions;
      expect(versions).toBe(DOCS + DOCS / 10 + Math.ceil(DOCS / 100)); // first captures, changed versions, 404s
      // The same answers as the SQLite index of the same archive, at a past instant too.
      const at = new Date(Date.UTC(2026, 0, 1) + 7 * DOCS).toISOString();
      for (const opts of [{}, { at }]) {
        expect(await queryCommand(query, { data: dataDir, db: url, json: true, ...opts })).toBe(await queryCommand(query, { data: sqliteDir, json: true, ...opts }));
      }
      expect(await queryCommand('', { data: dataDir, db: url, list: true })).toBe(await queryCommand('', { data: sqliteDir, list: true }));
      expect(shared.stats().versions).toBe(versions); // the later readers indexed nothing twice
    } finally {
      await shared.close();
    }
  }, 300_000);

  it('a database user with SELECT only: query answers from the index as it is, says how far behind it is, writes nothing', async () => {
    const admin = new pg.Client({ connectionString: pgBase! });
    await admin.connect();
    const role = `dm_ro_${randomBytes(5).toString('hex')}`;
    const schema = new URL(url).searchParams.get('schema')!;
    const asRole = new URL(url);
    asRole.username = role;
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`GRANT USAGE ON SCHEMA "${schema}" TO ${role}`);
      await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA "${schema}" TO ${role}`);
      const before = await queryCommand(query, { data: dataDir, db: url, json: true });
      // The crawl goes on: a new capture of document 7 (its record again, later) and a 404 of document 8, not indexed yet.
      const log = new PostgresStore(url);
      await log.init();
      const rows = await log.log({ url: web.document(7) });
      const capture = rows.find((e) => e.rdfOffset !== undefined)!;
      const last = Math.max(...(await log.log({ sinceId: logRows - 1, limit: 1 })).map((e) => e.time));
      const { id: _a, ...again } = capture;
      await log.appendLog({ ...again, time: last + 1_000 });
      const { id: _b, ...gone } = (await log.log({ url: web.document(8) }))[0]!;
      await log.appendLog({ ...gone, status: 404, rdfOffset: undefined, warcFile: undefined, time: last + 2_000 });
      await log.close();

      const stderr: string[] = [];
      const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (stderr.push(String(chunk)), true));
      let answer: string;
      try {
        answer = await queryCommand(query, { data: dataDir, db: asRole.toString(), json: true });
      } finally {
        spy.mockRestore();
      }
      expect(answer).toBe(before);
      const warning = stderr.join('');
      expect(warning).toMatch(/warning: the database user may not write the versioned store in PostgreSQL/);
      expect(warning).toContain('behind the crawl log by 2 log rows (2 versions or deletions not in it)');
      const shared = new PgVersionArchive(url, { readonly: true });
      try {
        expect(shared.indexedLogId()).toBe(logRows); // nothing written by the read-only user
        // A user who may write catches it up, and the read-only user then reads it whole, with no warning.
        await queryCommand(query, { data: dataDir, db: url, json: true });
        expect(shared.indexedLogId()).toBe(logRows + 2);
        stderr.length = 0;
        const again = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (stderr.push(String(chunk)), true));
        try {
          await queryCommand(query, { data: dataDir, db: asRole.toString(), json: true });
        } finally {
          again.mockRestore();
        }
        expect(stderr.join('')).not.toContain('warning');
      } finally {
        await shared.close();
      }
    } finally {
      await admin.query(`DROP OWNED BY ${role}`).catch(() => undefined);
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.end();
    }
  }, 300_000);

  it('serve answers SPARQL from the shared index', async () => {
    const app = await buildServer({ dataDir, db: url, logger: false });
    try {
      const r = await app.inject({ url: `/sparql?query=${encodeURIComponent(query)}`, headers: { accept: 'application/sparql-results+json' } });
      expect(r.statusCode).toBe(200);
      expect(JSON.parse(r.body).results.bindings).toHaveLength(2);
      expect(fs.existsSync(path.join(dataDir, VERSIONS_FILE))).toBe(false);
    } finally {
      await app.close();
    }
  }, 300_000);
});
