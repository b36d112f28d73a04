import Database from 'better-sqlite3';
const db = new Database(process.argv[2], { readonly: true });
for (const sql of [
  `SELECT q.rowid FROM quads q JOIN terms ts ON ts.id = q.s WHERE q.p = 5 AND q.to_t > 1 AND q.from_t <= 1`,
  `SELECT q.rowid FROM quads q JOIN terms ts ON ts.id = q.s WHERE q.s = 5 AND q.p = 7 AND q.to_t > 1 AND q.from_t <= 1`,
  `SELECT count(*) AS n FROM (SELECT 1 FROM quads q WHERE q.p = 5 LIMIT 100)`,
]) console.log(db.prepare('EXPLAIN QUERY PLAN ' + sql).all().map((r: any) => r.detail).join(' | '));
