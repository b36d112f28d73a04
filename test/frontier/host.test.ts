import { describe, expect, it } from 'vitest';
import { hostOf, hostnameOf, normalizeUrl, originOf } from '../../src/frontier/normalize.ts';

// URLs as links write them: case, user info, default and other ports, IPv4/IPv6, IDN, a trailing dot, no path.
const URLS = [
  'http://example.org/a', 'HTTP://WWW.Example.ORG:8080/b?c#d', 'https://user:pw@example.org:443/x', 'http://example.org:80',
  'http://u@h.example:8443?q=1', 'http://[::1]:8080/x', 'http://[2001:DB8::1]/', 'http://127.0.0.1:3000/', 'http://bücher.example/',
  'http://example.org./p', 'https://h.example#frag', 'http://h.example/p@q', 'http://h.example?x@y',
];

describe('hostOf and hostnameOf, the two hosts of a URL', () => {
  it('equal WHATWG URL host and hostname on every normalized URL', () => {
    for (const raw of URLS) {
      const url = normalizeUrl(raw)!;
      const parsed = new URL(url);
      expect(hostOf(url), raw).toBe(parsed.host);
      expect(hostnameOf(url), raw).toBe(parsed.hostname);
      expect(hostnameOf(originOf(url)), raw).toBe(parsed.hostname);
    }
  });

  it('keep the port apart where it matters: a host row per server, request spacing per machine', () => {
    expect(hostOf('http://h.example:8080/')).not.toBe(hostOf('http://h.example/'));
    expect(hostnameOf('http://h.example:8080/')).toBe(hostnameOf('https://h.example/'));
  });

  it('hostnameOf lower-cases and drops user info and port even on a URL that was not normalized', () => {
    expect(hostnameOf('http://User:p@ss@WWW.Example.org:8080/a?b#c')).toBe('www.example.org');
    expect(hostnameOf('http://[::1]:80/x')).toBe('[::1]');
    expect(hostnameOf('http://h.example?x@y')).toBe('h.example');
  });
});
