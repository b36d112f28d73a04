/**
 * Child process for the "two writers at once" test: adds documents u<from>..u<to-1> in batches
 * to the store named by argv (a SQLite file or a postgres:// URL) and prints how many were new.
 */
import { SqliteStore } from '../../src/store/sqlite.ts';
import { PostgresStore } from '../../src/store/postgres.ts';
import type { MetadataStore } from '../../src/store/types.ts';

const [target, fromArg, toArg, batchArg] = process.argv.slice(2);
const store: MetadataStore = target.startsWith('postgres') ? new PostgresStore(target) : new SqliteStore(target);
await store.init();
let added = 0;
const batch = Number(batchArg);
for (let i = Number(fromArg); i < Number(toArg); i += batch) {
  const docs = [];
  for (let j = i; j < Math.min(i + batch, Number(toArg)); j++) docs.push({ url: `http://h${j % 7}.example/u${j}`, host: `h${j % 7}.example`, depth: 1 });
  // Reverse order in every other batch, so the two writers meet keys in opposite orders.
  if ((i / batch) % 2) docs.reverse();
  added += await store.addDocuments(docs);
}
await store.close();
process.stdout.write(JSON.stringify({ added }));
