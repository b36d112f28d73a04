import { createHash } from 'node:crypto';
import { fromBase32 } from '../util/base32.ts';

/**
 * WARC digests as tools write them: `sha1:BASE32` (Heritrix, warcio, datamonitor), `sha1:hex`, `sha256:hex`
 * or base32 (Browsertrix, warcio.js), `sha-256:…`, or a bare value. Two digests are the same when they
 * name the same algorithm and bytes, whatever the spelling, so they are compared in one normal form.
 */

export type DigestAlgorithm = 'sha1' | 'sha256' | 'sha512' | 'md5';

export interface NormalDigest {
  algorithm: DigestAlgorithm;
  /** Lower-case hex of the digest bytes. */
  hex: string;
}

const SIZES: Record<DigestAlgorithm, number> = { md5: 16, sha1: 20, sha256: 32, sha512: 64 };
function algorithmOf(label: string): DigestAlgorithm | undefined {
  const l = label.toLowerCase().replace(/[-_]/g, '');
  return l === 'sha1' || l === 'sha256' || l === 'sha512' || l === 'md5' ? l : undefined;
}

/** The digest in normal form, or undefined when it is not one this reads (unknown algorithm, bad encoding). */
export function normalizeDigest(digest: string | undefined): NormalDigest | undefined {
  if (!digest) return undefined;
  const t = digest.trim();
  const c = t.indexOf(':');
  const label = c >= 0 ? algorithmOf(t.slice(0, c)) : undefined;
  if (c >= 0 && !label) return undefined;
  const value = c >= 0 ? t.slice(c + 1).trim() : t;
  const candidates: DigestAlgorithm[] = label ? [label] : ['sha1', 'sha256', 'sha512', 'md5'];
  for (const algorithm of candidates) {
    const n = SIZES[algorithm];
    if (/^[0-9a-f]+$/i.test(value) && value.length === n * 2) return { algorithm, hex: value.toLowerCase() };
    const b = /^[A-Z2-7]+=*$/i.test(value) ? fromBase32(value) : undefined;
    if (b && b.length === n && value.replace(/=+$/, '').length === Math.ceil((n * 8) / 5)) return { algorithm, hex: b.toString('hex') };
    if (/^[A-Za-z0-9+/]+=*$/.test(value)) {
      const b64 = Buffer.from(value, 'base64');
      if (b64.length === n && value.length >= Math.ceil((n * 4) / 3)) return { algorithm, hex: b64.toString('hex') };
    }
  }
  return undefined;
}

/** `sha256:…` in the normal form's spelling (a map key that any spelling of the digest finds). */
export function digestKey(digest: string | undefined): string | undefined {
  const n = normalizeDigest(digest);
  return n && `${n.algorithm}:${n.hex}`;
}

/** The digest of `data` in `algorithm`, in normal form. */
export function digestOf(data: Buffer, algorithm: DigestAlgorithm): NormalDigest {
  return { algorithm, hex: createHash(algorithm).update(data).digest('hex') };
}

/** Whether `data` has the digest `digest` (any spelling); undefined when the digest cannot be read. */
export function digestMatches(data: Buffer, digest: string): boolean | undefined {
  const n = normalizeDigest(digest);
  return n ? digestOf(data, n.algorithm).hex === n.hex : undefined;
}
