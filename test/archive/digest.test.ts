import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestKey, digestMatches, normalizeDigest } from '../../src/archive/digest.ts';
import { base32 } from '../helpers.ts';


/** Every spelling of a digest that WARC tools write. */
function spellings(data: string): Record<string, string[]> {
  const sha1 = createHash('sha1').update(data).digest();
  const sha256 = createHash('sha256').update(data).digest();
  return {
    sha1: [`sha1:${base32(sha1, false)}`, base32(sha1, false), `sha1:${sha1.toString('hex')}`, sha1.toString('hex'), `SHA-1:${sha1.toString('hex').toUpperCase()}`, `sha1:${base32(sha1, true)}`],
    sha256: [`sha256:${sha256.toString('hex')}`, sha256.toString('hex'), `sha256:${base32(sha256, false)}`, base32(sha256, true), `sha-256:${base32(sha256, true)}`, `sha256:${sha256.toString('base64')}`],
  };
}

describe('WARC digests compare in one normal form, whatever tool wrote them', () => {
  it('reads sha1 and sha256 in base32 and hex, with and without the prefix, as the same digest', () => {
    for (const [algorithm, forms] of Object.entries(spellings('payload one'))) {
      const keys = new Set(forms.map((f) => digestKey(f)));
      expect(keys.size, `${algorithm}: ${forms.join(' ')}`).toBe(1);
      expect([...keys][0]!.startsWith(`${algorithm}:`)).toBe(true);
      for (const f of forms) expect(digestMatches(Buffer.from('payload one'), f), f).toBe(true);
      for (const f of forms) expect(digestMatches(Buffer.from('payload two'), f), f).toBe(false);
    }
    const other = spellings('payload two');
    expect(digestKey(other.sha1[0])).not.toBe(digestKey(spellings('payload one').sha1[0]));
  });

  it('gives no digest for what is none (an unknown algorithm, a wrong length, not base32 or hex)', () => {
    for (const bad of ['', 'md4:abcd', 'sha1:xyz', 'sha1:' + 'A'.repeat(31), 'sha256:' + 'a'.repeat(40), 'hello world']) {
      expect(normalizeDigest(bad), bad).toBeUndefined();
      expect(digestMatches(Buffer.from('x'), bad), bad).toBeUndefined();
    }
  });
});
