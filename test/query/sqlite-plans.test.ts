import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import N3 from 'n3';
import Database from 'better-sqlite3';
import { openVersionStore, runQuery } from '../../src/query/index.ts';
import { NAMED_ROW_AT_T } from '../../src/versions/sqlite-store.ts';
import { linkedDataWeb } from '../../src/testkit/linked-data-web.ts';
import { T0 } from './helpers.ts';

/**
 * SQLite's choice of index for the count planner's probe "is any named-graph row valid at T": with the
 * validity's index it read every open row (2.5 s of every count at 1,000,000 documents, none of which has
 * a named graph), with the partial index of named-graph rows it reads none. The plan is read from SQLite
 * itself (EXPLAIN QUERY PLAN) on a store of the generated Web, as the planner has no statistics.
 */
describe('version store (SQLite): the named-graph probe reads the named-graph rows only', () => {
  it('uses quads_by_ng, and a count at T still sees a TriG document’s named graph', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-plans-'));
    try {
      const archive = openVersionStore(dir);
      const web = linkedDataWeb({ documents: 320, hosts: 4 });
      for (let i = 0; i < 320; i++) await archive.putVersion(web.document(i), T0 + i, new N3.Parser({ format: 'text/turtle' }).parse(web.turtle(i)));
      archive.flush();
      const db = new Database(path.join(dir, 'versions.sqlite'), { readonly: true });
      try {
        const plan = db.prepare(`EXPLAIN QUERY PLAN ${NAMED_ROW_AT_T}`).all(T0, T0).map((r) => (r as { detail: string }).detail).join('; ');
        expect(plan).toMatch(/quads_by_ng/);
        expect(plan).not.toMatch(/quads_by_to|quads_by_from/);
      } finally {
        db.close();
      }
      const before = await runQuery(archive, 'PREFIX dm: <https://w3id.org/datamonitor/ns#> SELECT (COUNT(*) AS ?n) WHERE { ?g dm:inDocument ?d }');
      expect(JSON.parse(before.body).results.bindings[0].n.value).toBe('0');
      await archive.putVersion('http://trig.lod.test/1.trig', T0 + 500, new N3.Parser({ format: 'application/trig' }).parse('<http://trig.lod.test/g> { <http://trig.lod.test/x> <http://trig.lod.test/p> "y" . }'));
      archive.flush();
      const after = await runQuery(archive, 'PREFIX dm: <https://w3id.org/datamonitor/ns#> SELECT (COUNT(*) AS ?n) WHERE { ?g dm:inDocument ?d }');
      expect(after.plan).toBe('count');
      expect(JSON.parse(after.body).results.bindings[0].n.value).toBe('1');
      await archive.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
