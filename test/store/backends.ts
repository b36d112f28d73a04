/**
 * The metadata store backends the store suites run against: SQLite (a real file in a temp dir) and
 * PostgreSQL (the shared `test` database, each test in its own schema that is dropped after).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../src/store/sqlite.ts';
import { PostgresStore } from '../../src/store/postgres.ts';
import type { MetadataStore } from '../../src/store/types.ts';
import { pgBaseUrl, isolatedSchemaUrl, dropSchema } from './pg.ts';

const pgBase = await pgBaseUrl();

/** One backend: `target` names the database (file or URL) that every `open()` connects to. */
export interface Backend {
  name: string;
  skip: boolean;
  setup(): Promise<{ target: string; open(): Promise<MetadataStore>; openReadOnly(): Promise<MetadataStore>; cleanup(): Promise<void> }>;
}

export const backends: Backend[] = [
  {
    name: 'SQLite',
    skip: false,
    async setup() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-store-'));
      const file = path.join(dir, 'meta.sqlite');
      return {
        target: file,
        open: async () => { const s = new SqliteStore(file); await s.init(); return s; },
        openReadOnly: async () => { const s = new SqliteStore(file, { readonly: true }); await s.init(); return s; },
        cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'PostgreSQL',
    skip: !pgBase,
    async setup() {
      const url = isolatedSchemaUrl(pgBase!);
      return {
        target: url,
        open: async () => { const s = new PostgresStore(url); await s.init(); return s; },
        openReadOnly: async () => { const s = new PostgresStore(url, { readonly: true }); await s.init(); return s; },
        cleanup: () => dropSchema(url),
      };
    },
  },
];

