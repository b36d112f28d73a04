/**
 * A disk-backed set of 64-bit fingerprints, the Mercator way (seed 002):
 * new fingerprints are buffered in memory; a full buffer is sorted and written
 * as an immutable sorted run; runs are merged in the background (cooperatively,
 * a chunk per event-loop turn) into larger runs, so a lookup consults few runs.
 *
 * Membership: buffer (hash table) → per run a blocked Bloom filter (one cache
 * line per probe, ~1 % false positives) → a sparse in-memory index of every
 * BLOCK-th key → one `fs.readSync` of that block → binary search. New URLs, the
 * bulk of a crawl's seen tests, are thus answered without touching the disk.
 *
 * Resident memory per stored fingerprint: the Bloom bits (12 bits by default)
 * plus 8 bytes per BLOCK keys of index, i.e. about 1.5 bytes, plus the fixed
 * buffer; the fingerprints themselves (8 bytes each) are on disk.
 *
 * Files in `dir`: MANIFEST (JSON list of live runs, replaced atomically by
 * write-temp + fsync + rename) and run-NNNNNN.fp (sorted uint64 little-endian,
 * value = hi·2³² + lo). A run is live only once the manifest lists it, and an
 * input run is deleted only after the manifest stops listing it, so a crash at
 * any point (mid-flush, mid-merge) leaves the previous committed state; files
 * the manifest does not list are removed on open. Fingerprints still in the
 * memory buffer at a crash are lost (at most `bufferKeys` URLs get re-crawled).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

if (os.endianness() !== 'LE') throw new Error('disk-set: run files are little-endian uint64 read through typed-array views; big-endian hosts are not supported');

/** Keys per sparse-index entry: one disk read fetches BLOCK·8 bytes. */
const BLOCK = 256;
/** Keys per merge/scan chunk (512 KiB of I/O). */
const CHUNK = 65536;
/** Above this many runs a flush finishes merges synchronously instead of waiting for idle turns. */
const MAX_RUNS = 12;
const MANIFEST = 'MANIFEST';

export interface DiskSetOptions {
  /** Directory of the set (created if missing). */
  dir: string;
  /** Fingerprints buffered in memory before a sorted run is written (default 1,048,576: 16 MiB). */
  bufferKeys?: number;
  /** Bloom filter bits per stored fingerprint (default 12: ~0.5–1 % of new keys cost a disk read). */
  bloomBitsPerKey?: number;
}

interface Run {
  file: string;
  fd: number;
  count: number;
  /** Every BLOCK-th key as [lo, hi] pairs. */
  fence: Uint32Array;
  bloom: Int32Array;
  bloomBlocks: number;
  /** Block last read, kept so that sorted batches of lookups reuse it. */
  cachedBlock: number;
  block: Uint32Array;
  blockBuf: Buffer;
}

/** Does (hi, lo) compare below (bhi, blo) as unsigned 64-bit? */
function less(hi: number, lo: number, bhi: number, blo: number): boolean {
  return hi < bhi || (hi === bhi && lo < blo);
}

function bloomSize(count: number, bitsPerKey: number): number {
  return Math.max(1, Math.ceil((count * bitsPerKey) / 512));
}

/** Sets/tests the 8 bits of a key inside one 512-bit block (a cache line pair) of the filter. */
function bloomAdd(bloom: Int32Array, blocks: number, hi: number, lo: number): void {
  const base = Math.floor((hi / 4294967296) * blocks) << 4;
  const step = Math.imul(hi, 0x9e3779b1) | 1;
  let x = lo;
  for (let i = 0; i < 8; i++) {
    const p = x >>> 23;
    bloom[base + (p >>> 5)] |= 1 << (p & 31);
    x = (x + step) | 0;
  }
}

function bloomHas(bloom: Int32Array, blocks: number, hi: number, lo: number): boolean {
  const base = Math.floor((hi / 4294967296) * blocks) << 4;
  const step = Math.imul(hi, 0x9e3779b1) | 1;
  let x = lo;
  for (let i = 0; i < 8; i++) {
    const p = x >>> 23;
    if ((bloom[base + (p >>> 5)] & (1 << (p & 31))) === 0) return false;
    x = (x + step) | 0;
  }
  return true;
}

function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  }
}

/** Writes a sorted run to a temp file, building its index and Bloom filter on the way. */
class RunWriter {
  private readonly fd: number;
  private readonly out = new Uint32Array(CHUNK * 2);
  private readonly outBuf = Buffer.from(this.out.buffer);
  private fill = 0;
  private written = 0;
  private count = 0;
  private readonly fence: Uint32Array;
  private readonly bloom: Int32Array;
  private readonly blocks: number;

  constructor(private readonly dir: string, private readonly file: string, maxCount: number, bitsPerKey: number) {
    this.fd = fs.openSync(path.join(dir, file + '.tmp'), 'w');
    this.fence = new Uint32Array(Math.ceil(maxCount / BLOCK) * 2);
    this.blocks = bloomSize(maxCount, bitsPerKey);
    this.bloom = new Int32Array(this.blocks * 16);
  }

  push(lo: number, hi: number): void {
    if (this.count % BLOCK === 0) {
      const f = (this.count / BLOCK) * 2;
      this.fence[f] = lo;
      this.fence[f + 1] = hi;
    }
    bloomAdd(this.bloom, this.blocks, hi, lo);
    this.count++;
    this.out[this.fill++] = lo;
    this.out[this.fill++] = hi;
    if (this.fill === this.out.length) this.drain();
  }

  private drain(): void {
    fs.writeSync(this.fd, this.outBuf, 0, this.fill * 4, this.written);
    this.written += this.fill * 4;
    this.fill = 0;
  }

  /** fsyncs and renames into place; the run is durable but not yet live (the manifest decides). */
  finish(): Run {
    this.drain();
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    fs.renameSync(path.join(this.dir, this.file + '.tmp'), path.join(this.dir, this.file));
    const fd = fs.openSync(path.join(this.dir, this.file), 'r');
    const fence = this.fence.slice(0, Math.ceil(this.count / BLOCK) * 2);
    return makeRun(this.file, fd, this.count, fence, this.bloom, this.blocks);
  }

  abort(): void {
    fs.closeSync(this.fd);
    fs.rmSync(path.join(this.dir, this.file + '.tmp'), { force: true });
  }
}

function makeRun(file: string, fd: number, count: number, fence: Uint32Array, bloom: Int32Array, bloomBlocks: number): Run {
  const block = new Uint32Array(BLOCK * 2);
  return { file, fd, count, fence, bloom, bloomBlocks, cachedBlock: -1, block, blockBuf: Buffer.from(block.buffer) };
}

/** Sequential chunked reader of a run file. */
class RunReader {
  readonly keys = new Uint32Array(CHUNK * 2);
  private readonly buf = Buffer.from(this.keys.buffer);
  pos = 0;
  end = 0;
  private offset = 0;
  constructor(private readonly fd: number, private readonly bytes: number) {}
  /** Refills when exhausted; false at the end of the file. */
  ready(): boolean {
    if (this.pos < this.end) return true;
    if (this.offset >= this.bytes) return false;
    const n = fs.readSync(this.fd, this.buf, 0, Math.min(this.buf.length, this.bytes - this.offset), this.offset);
    if (n <= 0 || n % 8 !== 0) throw new Error(`disk-set: short read in run file at offset ${this.offset}`);
    this.offset += n;
    this.pos = 0;
    this.end = n / 4;
    return true;
  }
}

interface Merge {
  inputs: Run[];
  readers: RunReader[];
  writer: RunWriter;
  file: string;
}

export class DiskSet {
  readonly dir: string;
  private readonly bitsPerKey: number;
  private readonly bufferCap: number;
  private runs: Run[] = [];
  private nextSeq = 1;
  // The buffer: keys as [lo, hi] pairs in arrival order, plus an open-addressing index (entry + 1).
  private readonly bufKeys: Uint32Array;
  private readonly bufTable: Int32Array;
  private readonly bufMask: number;
  private bufCount = 0;
  private merge: Merge | null = null;
  private mergeDone: Promise<void> | null = null;
  private closed = false;

  private constructor(opts: DiskSetOptions) {
    this.dir = opts.dir;
    this.bitsPerKey = opts.bloomBitsPerKey ?? 12;
    this.bufferCap = opts.bufferKeys ?? 1 << 20;
    if (!Number.isInteger(this.bufferCap) || this.bufferCap < 1) throw new RangeError(`bufferKeys must be a positive integer, got ${opts.bufferKeys}`);
    if (!(this.bitsPerKey >= 1 && this.bitsPerKey <= 64)) throw new RangeError(`bloomBitsPerKey must be between 1 and 64, got ${opts.bloomBitsPerKey}`);
    this.bufKeys = new Uint32Array(this.bufferCap * 2);
    let t = 2;
    while (t < this.bufferCap * 2) t *= 2;
    this.bufTable = new Int32Array(t);
    this.bufMask = t - 1;
  }

  /** Opens (or creates) the set in `opts.dir`, dropping files a crash left behind. */
  static open(opts: DiskSetOptions): DiskSet {
    const set = new DiskSet(opts);
    fs.mkdirSync(set.dir, { recursive: true });
    const manifestPath = path.join(set.dir, MANIFEST);
    let live: string[] = [];
    if (fs.existsSync(manifestPath)) {
      let parsed: { runs?: unknown; nextSeq?: unknown };
      try {
        parsed = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
      } catch (e) {
        throw new Error(`disk-set: ${manifestPath} is not valid JSON (${(e as Error).message}); the directory is not a seen set or is damaged`);
      }
      if (!Array.isArray(parsed.runs) || !parsed.runs.every((r) => typeof r === 'string' && /^run-\d+\.fp$/.test(r))) {
        throw new Error(`disk-set: ${manifestPath} has no valid "runs" list`);
      }
      live = parsed.runs as string[];
      set.nextSeq = typeof parsed.nextSeq === 'number' ? parsed.nextSeq : live.length + 1;
    }
    for (const f of fs.readdirSync(set.dir)) {
      if (/^run-\d+\.fp(\.tmp)?$/.test(f) && !live.includes(f)) fs.rmSync(path.join(set.dir, f), { force: true });
      if (f === MANIFEST + '.tmp') fs.rmSync(path.join(set.dir, f), { force: true });
    }
    for (const f of live) set.runs.push(set.loadRun(f));
    set.scheduleMerge();
    return set;
  }

  /** Number of fingerprints in the set. */
  get size(): number {
    let n = this.bufCount;
    for (const r of this.runs) n += r.count;
    return n;
  }

  /** Number of sorted runs on disk (falls as background merges complete). */
  get runCount(): number {
    return this.runs.length;
  }

  /** Bytes of memory this set holds in typed arrays (buffer, Bloom filters, sparse indexes), merges in flight included. */
  residentBytes(): number {
    let n = this.bufKeys.byteLength + this.bufTable.byteLength;
    for (const r of this.runs) n += r.bloom.byteLength + r.fence.byteLength + r.block.byteLength;
    if (this.merge) n += (this.merge.readers.length + 1) * CHUNK * 8 + Math.ceil(this.merge.inputs.reduce((a, r) => a + r.count, 0) * (this.bitsPerKey / 8));
    return n;
  }

  has(hi: number, lo: number): boolean {
    return this.inBuffer(hi, lo) || this.onDisk(hi, lo);
  }

  /** Adds the fingerprint; true when it was not in the set before. */
  addIfNew(hi: number, lo: number): boolean {
    if (this.has(hi, lo)) return false;
    this.addAbsent(hi, lo);
    return true;
  }

  /**
   * Membership of many fingerprints (`fps` holds hi, lo pairs) written to `out`
   * (1 = present). Disk probes happen in sorted key order, so lookups landing in
   * the same block share one read and the reads sweep each file forwards.
   */
  hasMany(fps: Uint32Array, count: number, out: Uint8Array): void {
    const probe: number[] = [];
    for (let i = 0; i < count; i++) {
      const hi = fps[2 * i], lo = fps[2 * i + 1];
      if (this.inBuffer(hi, lo)) { out[i] = 1; continue; }
      out[i] = 0;
      for (const r of this.runs) if (bloomHas(r.bloom, r.bloomBlocks, hi, lo)) { probe.push(i); break; }
    }
    if (probe.length === 0) return;
    probe.sort((a, b) => {
      const ha = fps[2 * a], hb = fps[2 * b];
      return ha !== hb ? ha - hb : fps[2 * a + 1] - fps[2 * b + 1];
    });
    for (const i of probe) if (this.onDisk(fps[2 * i], fps[2 * i + 1])) out[i] = 1;
  }

  /** Adds a fingerprint the caller knows to be absent (after has() said so). */
  addAbsent(hi: number, lo: number): void {
    if (this.closed) throw new Error('disk-set: used after close()');
    const e = this.bufCount++;
    this.bufKeys[2 * e] = lo;
    this.bufKeys[2 * e + 1] = hi;
    const t = this.bufTable, mask = this.bufMask;
    let i = lo & mask;
    while (t[i] !== 0) i = (i + 1) & mask;
    t[i] = e + 1;
    if (this.bufCount === this.bufferCap) this.flush();
  }

  /** Writes the buffer as a sorted run (durable once this returns). */
  flush(): void {
    if (this.bufCount === 0) return;
    const keys = this.bufKeys.slice(0, this.bufCount * 2);
    new BigUint64Array(keys.buffer).sort(); // [lo, hi] little-endian = hi·2³² + lo: native numeric sort
    const file = this.newRunFile();
    const w = new RunWriter(this.dir, file, this.bufCount, this.bitsPerKey);
    for (let i = 0; i < keys.length; i += 2) w.push(keys[i], keys[i + 1]);
    const run = w.finish();
    this.runs.push(run);
    this.writeManifest();
    this.bufCount = 0;
    this.bufTable.fill(0);
    if (this.runs.length > MAX_RUNS) this.mergeNowUntil(MAX_RUNS);
    this.scheduleMerge();
  }

  /** Resolves when no background merge is running or due. */
  async idle(): Promise<void> {
    while (this.mergeDone) await this.mergeDone;
  }

  /** Flushes the buffer and closes the files; a merge in flight is abandoned (its temp file removed, inputs intact). */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    if (this.merge) { this.merge.writer.abort(); this.merge = null; }
    for (const r of this.runs) fs.closeSync(r.fd);
    this.runs = [];
  }

  private inBuffer(hi: number, lo: number): boolean {
    const t = this.bufTable, mask = this.bufMask, k = this.bufKeys;
    let i = lo & mask;
    for (;;) {
      const e = t[i] - 1;
      if (e < 0) return false;
      if (k[2 * e] === lo && k[2 * e + 1] === hi) return true;
      i = (i + 1) & mask;
    }
  }

  private onDisk(hi: number, lo: number): boolean {
    for (const r of this.runs) {
      if (bloomHas(r.bloom, r.bloomBlocks, hi, lo) && this.inRun(r, hi, lo)) return true;
    }
    return false;
  }

  private inRun(r: Run, hi: number, lo: number): boolean {
    const fence = r.fence;
    let a = 0, b = fence.length / 2 - 1; // largest fence entry ≤ key
    if (less(hi, lo, fence[1], fence[0])) return false;
    while (a < b) {
      const m = (a + b + 1) >>> 1;
      if (less(hi, lo, fence[2 * m + 1], fence[2 * m])) b = m - 1; else a = m;
    }
    const n = Math.min(BLOCK, r.count - a * BLOCK);
    if (r.cachedBlock !== a) {
      const got = fs.readSync(r.fd, r.blockBuf, 0, n * 8, a * BLOCK * 8);
      if (got !== n * 8) throw new Error(`disk-set: ${r.file} is shorter than its index says (read ${got} of ${n * 8} bytes)`);
      r.cachedBlock = a;
    }
    const k = r.block;
    let x = 0, y = n - 1;
    while (x <= y) {
      const m = (x + y) >>> 1;
      const mh = k[2 * m + 1], ml = k[2 * m];
      if (mh === hi && ml === lo) return true;
      if (less(mh, ml, hi, lo)) x = m + 1; else y = m - 1;
    }
    return false;
  }

  private newRunFile(): string {
    return `run-${String(this.nextSeq++).padStart(6, '0')}.fp`;
  }

  private loadRun(file: string): Run {
    const p = path.join(this.dir, file);
    const bytes = fs.statSync(p).size;
    if (bytes % 8 !== 0) throw new Error(`disk-set: ${p} has ${bytes} bytes, not a whole number of 8-byte fingerprints`);
    const count = bytes / 8;
    const fd = fs.openSync(p, 'r');
    const fence = new Uint32Array(Math.ceil(count / BLOCK) * 2);
    const blocks = bloomSize(count, this.bitsPerKey);
    const bloom = new Int32Array(blocks * 16);
    const reader = new RunReader(fd, bytes);
    let i = 0;
    while (reader.ready()) {
      const k = reader.keys;
      for (let j = reader.pos; j < reader.end; j += 2, i++) {
        if (i % BLOCK === 0) { fence[(i / BLOCK) * 2] = k[j]; fence[(i / BLOCK) * 2 + 1] = k[j + 1]; }
        bloomAdd(bloom, blocks, k[j + 1], k[j]);
      }
      reader.pos = reader.end;
    }
    return makeRun(file, fd, count, fence, bloom, blocks);
  }

  private writeManifest(): void {
    const tmp = path.join(this.dir, MANIFEST + '.tmp');
    const body = JSON.stringify({ version: 1, runs: this.runs.map((r) => r.file), nextSeq: this.nextSeq }) + '\n';
    const fd = fs.openSync(tmp, 'w');
    try { fs.writeSync(fd, body); fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
    fs.renameSync(tmp, path.join(this.dir, MANIFEST));
    fsyncDir(this.dir);
  }

  /**
   * Which runs to merge: the newest runs whose total is at least half the size of
   * the run before them (a binary counter), so there are O(log n) runs and each
   * key is rewritten O(log n) times.
   */
  private pickMerge(): Run[] | null {
    const runs = this.runs;
    let j = runs.length - 1, sum = 0;
    while (j >= 0) {
      sum += runs[j].count;
      if (j === 0 || runs[j - 1].count > 2 * sum) break;
      j--;
    }
    return runs.length - j >= 2 ? runs.slice(j) : null;
  }

  private startMerge(inputs: Run[]): void {
    const file = this.newRunFile();
    const total = inputs.reduce((a, r) => a + r.count, 0);
    this.merge = {
      inputs,
      readers: inputs.map((r) => new RunReader(r.fd, r.count * 8)),
      writer: new RunWriter(this.dir, file, total, this.bitsPerKey),
      file,
    };
  }

  /** Merges up to `budget` keys; true when the merge finished (and was committed). */
  private mergeStep(budget: number): boolean {
    const m = this.merge!;
    const rs = m.readers.filter((r) => r.ready());
    let lastHi = -1, lastLo = -1;
    while (budget-- > 0) {
      let best = -1, bh = 0, bl = 0;
      for (let i = 0; i < rs.length; i++) {
        const r = rs[i];
        const h = r.keys[r.pos + 1], l = r.keys[r.pos];
        if (best < 0 || less(h, l, bh, bl)) { best = i; bh = h; bl = l; }
      }
      if (best < 0) { this.commitMerge(); return true; }
      const r = rs[best];
      r.pos += 2;
      if (!r.ready()) rs.splice(best, 1);
      if (bh === lastHi && bl === lastLo) continue; // runs are disjoint by construction; stay safe anyway
      m.writer.push(bl, bh);
      lastHi = bh; lastLo = bl;
    }
    return false;
  }

  private commitMerge(): void {
    const m = this.merge!;
    const run = m.writer.finish();
    const at = this.runs.indexOf(m.inputs[0]);
    this.runs = this.runs.filter((r) => !m.inputs.includes(r));
    this.runs.splice(at, 0, run);
    this.writeManifest();
    for (const r of m.inputs) {
      fs.closeSync(r.fd);
      fs.rmSync(path.join(this.dir, r.file), { force: true });
    }
    this.merge = null;
  }

  /** Starts a merge if one is due, and drives it a chunk per event-loop turn. */
  private scheduleMerge(): void {
    if (this.merge || this.mergeDone || this.closed) return;
    const inputs = this.pickMerge();
    if (!inputs) return;
    this.startMerge(inputs);
    this.mergeDone = (async () => {
      while (this.merge && !this.closed) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.merge && !this.closed) this.mergeStep(CHUNK);
      }
      this.mergeDone = null;
      this.scheduleMerge();
    })();
  }

  /** Finishes merges synchronously until at most `maxRuns` runs remain (or nothing is due). */
  private mergeNowUntil(maxRuns: number): void {
    while (this.runs.length > maxRuns) {
      if (!this.merge) {
        const inputs = this.pickMerge() ?? this.runs.slice(-2);
        this.startMerge(inputs);
      }
      while (!this.mergeStep(CHUNK * 16));
    }
  }
}
