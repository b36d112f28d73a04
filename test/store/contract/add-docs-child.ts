/**
 * Child process for the "two writers at once" test: opens the store named by argv as the CLI does
 * (`openStore`: a `<data>/meta.sqlite` file, or a `--db` URL), adds documents u<from>..u<to-1> in
 * batches and prints how many were new.
 */
import path from 'node:path';
import { openStore } from '../../../src/store/index.ts';

const [target, fromArg, toArg, batchArg] = process.argv.slice(2);
const store = target!.includes('://') ? await openStore('/nonexistent-unused', target) : await openStore(path.dirname(target!));
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
