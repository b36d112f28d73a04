import { describe, it, expect } from 'vitest';
import { addressBlocker, staticLookup } from '../../src/fetch/index.ts';

describe('address policy', () => {
  const blocked = addressBlocker({ allowPrivate: false });

  it.each([
    '127.0.0.1', '127.9.9.9', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '100.64.0.1', '0.0.0.0', '::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.1.2.3',
    '[::1]', '224.0.0.1', '255.255.255.255', 'not-an-ip',
  ])('refuses %s', (ip) => {
    expect(blocked(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows public %s', (ip) => {
    expect(blocked(ip)).toBe(false);
  });

  it('allowPrivate lifts the policy; allowAddresses makes exceptions by IP or CIDR', () => {
    expect(addressBlocker({ allowPrivate: true })('127.0.0.1')).toBe(false);
    const some = addressBlocker({ allowPrivate: false, allowAddresses: ['127.0.0.1', '10.8.0.0/16'] });
    expect(some('127.0.0.1')).toBe(false);
    expect(some('::ffff:127.0.0.1')).toBe(false);
    expect(some('127.0.0.2')).toBe(true);
    expect(some('10.8.3.4')).toBe(false);
    expect(some('10.9.0.1')).toBe(true);
  });
});

describe('staticLookup', () => {
  it('resolves mapped names (case-insensitively) and fails others with ENOTFOUND, or asks the fallback', async () => {
    const lookup = staticLookup({ 'A.example.test': '127.0.0.1', 'v6.example.test': '::1' });
    expect(await lookup('a.example.test')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await lookup('v6.example.test')).toEqual([{ address: '::1', family: 6 }]);
    await expect(lookup('other.example.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    const chained = staticLookup({}, lookup);
    expect(await chained('a.example.test')).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('rejects a map entry that is not an IP', () => {
    expect(() => staticLookup({ 'a.example.test': 'localhost' })).toThrow(/not an IP/);
  });
});
