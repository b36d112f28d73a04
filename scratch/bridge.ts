import { SyncPg } from '../src/util/sync-pg.ts';
const db = new SyncPg('postgres://postgres@127.0.0.1:5432/test');
let t = Date.now();
console.log(db.query('SELECT 1::bigint AS x, $1::text AS y', ['hi']), Date.now() - t);
t = Date.now();
for (let i = 0; i < 1000; i++) db.query('SELECT 1');
console.log('1000 calls', Date.now() - t, 'ms');
try { db.query('SELECT nope'); } catch (e) { console.log('err', (e as Error).message, (e as any).code); }
await db.close();
