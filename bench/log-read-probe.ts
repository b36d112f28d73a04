/**
 * A timing probe of the crawl-log reads that name WARC files or go through the stores' row mapping
 * (bench/RESULTS.md, "Crawl log size", WARC file ids): each read repeated on one archive, SQLite read-only.
 * SOURCE_ROOT picks the store code (another checkout, e.g. main's, for a before/after on an archive it wrote).
 *
 *   node bin/run-ts.mjs bench/log-read-probe.ts DATA_DIR [SOURCE_ROOT]
 *   (an archive to probe: node bin/run-ts.mjs bench/log-size.bench.ts --pages 100000 --keep DIR)
 */
import path from 'node:path';
import type { CrawlLogEntry } from '../src/store/types.ts';

const [dataDir, root = path.resolve(import.meta.dirname, '..')] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: log-read-probe.ts DATA_DIR [SOURCE_ROOT]');
const { SqliteStore } = (await import(path.join(root, 'src/store/sqlite.ts'))) as typeof import('../src/store/sqlite.ts');
const store = new SqliteStore(path.join(dataDir, 'meta.sqlite'), { readonly: true });
await store.init();
const all: CrawlLogEntry[] = await store.log({ limit: 100_000 });
const sample = all.filter((e) => e.warcFile && e.status === 200).filter((_, i) => i % 997 === 0).slice(0, 50);
const files = [...new Set(all.flatMap((e) => (e.warcFile ? [e.warcFile] : [])))];
const host = `${new URL(sample[0]!.url).origin}/`;

async function time(name: string, n: number, f: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 3; i++) await f(i);
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await f(i);
  process.stdout.write(`| ${name}, ${n} | ${(Number(process.hrtime.bigint() - t) / 1e6 / n).toFixed(3)} |\n`);
}

process.stdout.write(`${all.length} rows read, ${files.length} WARC files\n\n| read | ms a read |\n|---|---:|\n`);
await time('versions(url) (Memento)', 5000, (i) => store.versions(sample[i % sample.length]!.url));
await time('fates({url}) (log --url)', 5000, (i) => store.fates({ url: sample[i % sample.length]!.url, limit: 100 }));
await time('captures, a host page of 100 (CDX)', 200, () => store.captures({ prefixes: [host], limit: 100 }));
await time('log({warcFile, converted}), a page of 5,000 (export)', 20, (i) => store.log({ warcFile: files[i % files.length]!, limit: 5000, converted: true }));
// A SOURCE_ROOT older than warcEnds has warcEnd, a file at a time.
const old = store as unknown as Partial<{ warcEnd(file: string): Promise<number> }>;
if (old.warcEnd) await time('warcEnd(file) (WARC writer recovery)', 200, (i) => old.warcEnd!(files[i % files.length]!));
else await time('warcEnds(every file) (WARC writer recovery)', 5, () => store.warcEnds(files));
await time('latestLog(200) (dashboard)', 100, () => store.latestLog(200));
// Where they are there (a SOURCE_ROOT older than them has not all of them).
const more = store as unknown as Partial<{ logOrigins(): Promise<string[]>; searchUrls(q: object): Promise<unknown[]>; latestEntries(q: object): Promise<unknown[]> }>;
if (more.logOrigins) await time('logOrigins() (CDX domain)', 200, () => more.logOrigins!());
if (more.searchUrls) await time('searchUrls, a host prefix page of 100 (URL search)', 50, () => more.searchUrls!({ text: host, match: 'prefix', limit: 100 }));
if (more.latestEntries) await time('latestEntries(version), a page of 1,000 (export)', 20, () => more.latestEntries!({ kind: 'version', limit: 1000 }));
await store.close();
