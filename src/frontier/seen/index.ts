/**
 * The seen-URL set of the crawler: an in-memory fingerprint cache (CLOCK by
 * default) in front of the disk-backed fingerprint set (seed 002). Memory stays
 * bounded however large the crawl grows: the cache has a fixed size and the disk
 * set keeps ~1.5 bytes per URL resident (see disk-set.ts).
 *
 * URLs are taken as given: normalise them first (src/frontier/normalize.ts) so
 * that equal resources share a fingerprint.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createCache, CACHE_POLICIES, type CachePolicy, type FingerprintCache } from './cache.ts';
import { DiskSet } from './disk-set.ts';
import { fingerprintTo } from './fingerprint.ts';

export { fingerprint, fingerprintTo, fingerprintPair, partitionOf } from './fingerprint.ts';
export { createCache, ClockCache, LruCache, RandomCache, StaticCache, CACHE_POLICIES } from './cache.ts';
export type { CachePolicy, FingerprintCache } from './cache.ts';
export { DiskSet } from './disk-set.ts';
export type { DiskSetOptions } from './disk-set.ts';

export interface SeenSetOptions {
  /** Directory of the disk set (created if missing; reopening it restores the membership). */
  dir: string;
  /** Cache policy (default 'clock'). */
  cache?: CachePolicy;
  /** Cache entries (default 262,144 ≈ 5 MiB). 0 disables the cache. */
  cacheSize?: number;
  /** For cache 'static': the URLs to hold, most frequent first (e.g. from an earlier crawl's trace). */
  staticUrls?: Iterable<string>;
  /** Appends every URL given to addIfNew/addManyIfNew to this file, one a line (`crawl --trace-out`). */
  traceOut?: string;
  /** Fingerprints buffered before a sorted run is written (default 1,048,576). */
  bufferKeys?: number;
}

const TRACE_FLUSH_CHARS = 1 << 16;

export class SeenSet {
  readonly cache: FingerprintCache;
  readonly disk: DiskSet;
  private readonly fp = new Uint32Array(2);
  private traceFd: number | null = null;
  private trace: string[] = [];
  private traceChars = 0;
  private closed = false;

  private constructor(cache: FingerprintCache, disk: DiskSet, traceOut?: string) {
    this.cache = cache;
    this.disk = disk;
    if (traceOut) {
      fs.mkdirSync(path.dirname(path.resolve(traceOut)), { recursive: true });
      this.traceFd = fs.openSync(traceOut, 'a');
    }
  }

  static async open(opts: SeenSetOptions): Promise<SeenSet> {
    return SeenSet.openSync(opts);
  }

  static openSync(opts: SeenSetOptions): SeenSet {
    const policy = opts.cache ?? 'clock';
    if (!CACHE_POLICIES.includes(policy)) throw new RangeError(`unknown cache policy '${policy}' (expected one of ${CACHE_POLICIES.join(', ')})`);
    const size = opts.cacheSize ?? 1 << 18;
    let staticKeys: Uint32Array | undefined;
    if (policy === 'static') {
      const urls = [...(opts.staticUrls ?? [])].slice(0, size);
      staticKeys = new Uint32Array(urls.length * 2);
      urls.forEach((u, i) => fingerprintTo(u, staticKeys!, 2 * i));
    }
    const cache = createCache(policy, size, staticKeys);
    const disk = DiskSet.open({ dir: opts.dir, bufferKeys: opts.bufferKeys });
    return new SeenSet(cache, disk, opts.traceOut);
  }

  /** Number of distinct URLs seen. */
  get size(): number {
    return this.disk.size;
  }

  /** Marks the URL seen; true when it had not been seen before. */
  async addIfNew(url: string): Promise<boolean> {
    return this.addIfNewSync(url);
  }

  /** addIfNew without the promise, for synchronous callers and tight loops. */
  addIfNewSync(url: string): boolean {
    this.traceUrl(url);
    const fp = this.fp;
    fingerprintTo(url, fp, 0);
    const hi = fp[0], lo = fp[1];
    if (this.cache.has(hi, lo)) return false;
    const isNew = this.disk.addIfNew(hi, lo);
    this.cache.add(hi, lo);
    return isNew;
  }

  /**
   * addIfNew for many URLs, in order (a URL repeated in the batch is new at most
   * once). The cache misses are looked up on disk together, in sorted order.
   */
  async addManyIfNew(urls: readonly string[]): Promise<boolean[]> {
    const n = urls.length;
    const fps = new Uint32Array(n * 2);
    const known = new Uint8Array(n); // 1 = seen (cache or disk)
    const miss = new Uint32Array(n * 2);
    const missAt: number[] = [];
    for (let i = 0; i < n; i++) {
      this.traceUrl(urls[i]);
      fingerprintTo(urls[i], fps, 2 * i);
      if (this.cache.has(fps[2 * i], fps[2 * i + 1])) known[i] = 1;
      else { miss[2 * missAt.length] = fps[2 * i]; miss[2 * missAt.length + 1] = fps[2 * i + 1]; missAt.push(i); }
    }
    const onDisk = new Uint8Array(missAt.length);
    this.disk.hasMany(miss, missAt.length, onDisk);
    for (let j = 0; j < missAt.length; j++) if (onDisk[j]) known[missAt[j]] = 1;
    const out = new Array<boolean>(n);
    for (let i = 0; i < n; i++) {
      const hi = fps[2 * i], lo = fps[2 * i + 1];
      if (known[i]) { out[i] = false; continue; }
      // Not seen before this batch; an earlier copy in the batch may have added it since.
      out[i] = this.disk.addIfNew(hi, lo);
      this.cache.add(hi, lo);
    }
    // Give background merges a turn between batches.
    await new Promise<void>((resolve) => setImmediate(resolve));
    return out;
  }

  /** Has the URL been seen? (Does not record it, and is not traced.) */
  has(url: string): boolean {
    const fp = this.fp;
    fingerprintTo(url, fp, 0);
    return this.cache.has(fp[0], fp[1]) || this.disk.has(fp[0], fp[1]);
  }

  /** Waits for background merges to settle (useful before measuring). */
  async idle(): Promise<void> {
    await this.disk.idle();
  }

  /** Bytes held in typed arrays by the disk set (cache excluded). */
  residentBytes(): number {
    return this.disk.residentBytes();
  }

  /** Persists everything and closes the files. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.flushTrace();
    if (this.traceFd !== null) { fs.closeSync(this.traceFd); this.traceFd = null; }
    this.disk.close();
  }

  private traceUrl(url: string): void {
    if (this.traceFd === null) return;
    this.trace.push(url);
    this.traceChars += url.length + 1;
    if (this.traceChars >= TRACE_FLUSH_CHARS) this.flushTrace();
  }

  private flushTrace(): void {
    if (this.traceFd === null || this.trace.length === 0) return;
    fs.writeSync(this.traceFd, this.trace.join('\n') + '\n');
    this.trace = [];
    this.traceChars = 0;
  }
}
