/**
 * 64-bit fingerprints of (normalised) URL strings, as a hi/lo pair of uint32.
 *
 * Why a pair and not a bigint: every consumer (cache tables, the disk set, the
 * caching lab) stores keys in Uint32Arrays, and producing a bigint per URL costs
 * an allocation in the hot path. `fingerprint()` gives a bigint for convenience.
 *
 * The hash runs two 32-bit multiply-rotate streams over the UTF-8 bytes of the
 * string (ASCII chars are their own UTF-8 byte, so no encoding pass for the
 * common case; runs of ASCII go two bytes per step) and cross-mixes them with murmur3's finaliser. The rotation feeds
 * high bits back into low bits at every step, so the low bits of the two halves
 * are not simple parities of the input (the weakness of plain FNV/cyrb streams).
 *
 * The value (0, 0) is reserved as "empty" by the open-addressing tables; it is
 * remapped to (0, 1), which changes the collision odds by nothing measurable.
 */
import { hostnameOf } from '../normalize.ts';

const M1 = 0x9e3779b1;
const M2 = 0x85ebca77;

/** Scratch output for callers that want the two halves without allocating. */
export const FP = new Uint32Array(2); // [hi, lo] of the last fingerprintPair() call

/** Writes the fingerprint of `s` to out[at] (hi) and out[at + 1] (lo). */
export function fingerprintTo(s: string, out: Uint32Array, at: number): void {
  let h1 = 0x2545f491 ^ s.length;
  let h2 = 0x9b05688c;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      // Two ASCII bytes per step when they come in a row (URLs nearly always):
      // half the multiplies. The marker bit keeps a pair apart from a single byte.
      if (i + 1 < n) {
        const d = s.charCodeAt(i + 1);
        if (d < 0x80) { c |= (d << 8) | 0x10000; i++; }
      }
      h1 = Math.imul(((h1 << 5) | (h1 >>> 27)) ^ c, M1);
      h2 = Math.imul(((h2 << 11) | (h2 >>> 21)) ^ c, M2);
      continue;
    }
    // Non-ASCII: feed the UTF-8 bytes so that equal strings hash equally whatever
    // their origin, and a lone surrogate hashes as U+FFFD (what TextEncoder emits).
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; } else c = 0xfffd;
    } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    let bytes: number; // up to 4 bytes packed little-end first
    if (c < 0x800) bytes = (0xc0 | (c >> 6)) | ((0x80 | (c & 63)) << 8) | (2 << 24);
    else if (c < 0x10000) bytes = (0xe0 | (c >> 12)) | ((0x80 | ((c >> 6) & 63)) << 8) | ((0x80 | (c & 63)) << 16) | (3 << 24);
    else bytes = -1;
    if (bytes === -1) {
      const b = [0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63)];
      for (const x of b) {
        h1 = Math.imul(((h1 << 5) | (h1 >>> 27)) ^ x, M1);
        h2 = Math.imul(((h2 << 11) | (h2 >>> 21)) ^ x, M2);
      }
    } else {
      const count = bytes >>> 24;
      for (let k = 0; k < count; k++) {
        const x = (bytes >>> (8 * k)) & 0xff;
        h1 = Math.imul(((h1 << 5) | (h1 >>> 27)) ^ x, M1);
        h2 = Math.imul(((h2 << 11) | (h2 >>> 21)) ^ x, M2);
      }
    }
  }
  h1 ^= h1 >>> 16; h1 = Math.imul(h1, 0x85ebca6b); h1 ^= h1 >>> 13; h1 = Math.imul(h1, 0xc2b2ae35);
  h2 ^= h2 >>> 16; h2 = Math.imul(h2, 0x85ebca6b); h2 ^= h2 >>> 13; h2 = Math.imul(h2, 0xc2b2ae35);
  h1 ^= h2 >>> 16; h2 ^= h1 >>> 15; h1 = Math.imul(h1 ^ h2, 0x27d4eb2f); h2 = Math.imul(h2 ^ (h1 >>> 16), 0x165667b1);
  h1 ^= h1 >>> 16; h2 ^= h2 >>> 16;
  const hi = h1 >>> 0;
  let lo = h2 >>> 0;
  if (hi === 0 && lo === 0) lo = 1;
  out[at] = hi;
  out[at + 1] = lo;
}

/** Fingerprint into the shared scratch `FP` ([hi, lo]); valid until the next call. */
export function fingerprintPair(s: string): Uint32Array {
  fingerprintTo(s, FP, 0);
  return FP;
}

/** 53 bits of the fingerprint as a number (exact in a double): a Set or Map key without a bigint or a string. */
export function fingerprint53(s: string): number {
  fingerprintTo(s, FP, 0);
  return FP[0]! * 2097152 + (FP[1]! >>> 11);
}

/** The fingerprint as an unsigned 64-bit bigint (hi << 32 | lo); convenient, not for hot paths. */
export function fingerprint(s: string): bigint {
  fingerprintTo(s, FP, 0);
  return (BigInt(FP[0]) << 32n) | BigInt(FP[1]);
}

/**
 * Which of `n` crawler processes owns `url`: a hash of the host only, as Mercator
 * assigns hosts to processes (seed 002), so all URLs of a host meet in one process
 * and its politeness and seen test stay local.
 */
export function partitionOf(url: string, n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`partitionOf: n must be a positive integer, got ${n}`);
  if (n === 1) return 0;
  const f = fingerprintPair(hostnameOf(url));
  // Multiply-shift on the high half: uniform for any n, no modulo bias worth noting.
  return Math.floor((f[0] / 4294967296) * n);
}
