/**
 * A Bloom filter of URL keys: what an archive publishes in its holdings so that an aggregator asks
 * only the archives that may hold a URL. No false negatives (an archive that holds a URL is always
 * asked); a false positive costs one needless TimeMap request, about `fpRate` of the time.
 *
 * Hashing, so that any party can test a key: the project's 64-bit URL fingerprint
 * (src/frontier/seen/fingerprint.ts) of the key as two uint32 (hi, lo); with lo' = lo | 1, the
 * k bit positions j_i = (hi + ((i·lo') mod 2^32) mod m) mod m for i = 0 … k-1 (Kirsch and
 * Mitzenmacher's double hashing); bit j is byte j >> 3, mask 1 << (j & 7).
 */
import { fingerprintTo } from '../frontier/seen/fingerprint.ts';

export interface BloomJson {
  /** Bits in the filter. */
  m: number;
  /** Hash functions. */
  k: number;
  /** Keys added. */
  n: number;
  /** The bits, base64. */
  bits: string;
}

const scratch = new Uint32Array(2);

export class BloomFilter {
  readonly bits: Uint8Array;
  n = 0;

  constructor(readonly m: number, readonly k: number, bits?: Uint8Array) {
    if (!(Number.isInteger(m) && m >= 8 && Number.isInteger(k) && k >= 1 && k <= 32)) throw new RangeError(`bad Bloom filter shape m=${m} k=${k}`);
    this.bits = bits ?? new Uint8Array(Math.ceil(m / 8));
    if (this.bits.length !== Math.ceil(m / 8)) throw new RangeError(`Bloom filter of ${m} bits needs ${Math.ceil(m / 8)} bytes, got ${this.bits.length}`);
  }

  /** Sized for `capacity` keys at false-positive rate `fpRate` (the optimum m and k). */
  static forCapacity(capacity: number, fpRate = 0.01): BloomFilter {
    const n = Math.max(1, capacity);
    const m = Math.max(64, Math.ceil((-n * Math.log(fpRate)) / (Math.LN2 * Math.LN2)));
    const k = Math.max(1, Math.min(32, Math.round((m / n) * Math.LN2)));
    return new BloomFilter(m, k);
  }

  private positions(key: string, each: (byte: number, mask: number) => boolean): boolean {
    fingerprintTo(key, scratch, 0);
    const hi = scratch[0]!;
    const lo = scratch[1]! | 1; // odd: the k positions never collapse onto one
    for (let i = 0; i < this.k; i++) {
      const j = (hi + ((Math.imul(i, lo) >>> 0) % this.m)) % this.m;
      if (!each(j >> 3, 1 << (j & 7))) return false;
    }
    return true;
  }

  add(key: string): void {
    this.positions(key, (b, mask) => ((this.bits[b]! |= mask), true));
    this.n++;
  }

  mayContain(key: string): boolean {
    return this.positions(key, (b, mask) => (this.bits[b]! & mask) !== 0);
  }

  toJSON(): BloomJson {
    return { m: this.m, k: this.k, n: this.n, bits: Buffer.from(this.bits).toString('base64') };
  }

  /** Reads a published filter; throws on a malformed one (the caller then treats the archive as holding anything). */
  static fromJSON(j: unknown): BloomFilter {
    const o = j as Partial<BloomJson> | null;
    if (!o || typeof o.m !== 'number' || typeof o.k !== 'number' || typeof o.bits !== 'string') throw new Error('not a Bloom filter {m, k, n, bits}');
    const f = new BloomFilter(o.m, o.k, new Uint8Array(Buffer.from(o.bits, 'base64')));
    f.n = typeof o.n === 'number' ? o.n : 0;
    return f;
  }
}
