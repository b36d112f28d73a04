import { describe, it, expect } from 'vitest';
import { fingerprint, fingerprintTo, partitionOf } from '../../src/frontier/seen/fingerprint.ts';
import { hostnameOf } from '../../src/frontier/normalize.ts';

describe('fingerprint', () => {
  it('is deterministic and tells near-identical URLs apart', () => {
    const seen = new Set<bigint>();
    for (let i = 0; i < 20000; i++) seen.add(fingerprint(`http://example.org/a/${i}`));
    expect(seen.size).toBe(20000);
    expect(fingerprint('http://example.org/x')).toBe(fingerprint('http://example.org/x'));
    expect(fingerprint('http://example.org/x')).not.toBe(fingerprint('http://example.org/y'));
    expect(fingerprint('')).not.toBe(0n);
  });

  it('writes the same value as a hi/lo pair as it returns as a bigint', () => {
    const out = new Uint32Array(4);
    fingerprintTo('http://example.org/é/日本/😀', out, 2);
    expect((BigInt(out[2]) << 32n) | BigInt(out[3])).toBe(fingerprint('http://example.org/é/日本/😀'));
    expect(out[0]).toBe(0);
  });

  it('hashes the UTF-8 bytes: a lone surrogate counts as U+FFFD, as TextEncoder encodes it', () => {
    expect(fingerprint('http://x/\ud800')).toBe(fingerprint('http://x/\ufffd'));
    expect(fingerprint('http://x/😀')).not.toBe(fingerprint('http://x/\ufffd'));
  });
});

describe('partitionOf', () => {
  it('hashes the host only: case, user info, port and path do not matter', () => {
    expect(hostnameOf('http://User:pw@WWW.Example.org:8080/a?b#c')).toBe('www.example.org');
    expect(hostnameOf('http://[::1]:80/x')).toBe('[::1]');
    const p = partitionOf('http://www.example.org/a', 16);
    expect(partitionOf('http://WWW.EXAMPLE.ORG:8080/b/c?d', 16)).toBe(p);
    expect(partitionOf('https://u@www.example.org', 16)).toBe(p);
  });

  it('spreads hosts evenly over the processes', () => {
    const counts = new Array(8).fill(0);
    for (let h = 0; h < 8000; h++) counts[partitionOf(`http://host${h}.example/`, 8)]++;
    for (const c of counts) expect(c).toBeGreaterThan(850);
    expect(partitionOf('http://a.example/', 1)).toBe(0);
    expect(() => partitionOf('http://a.example/', 0)).toThrow(/positive integer/);
  });
});
