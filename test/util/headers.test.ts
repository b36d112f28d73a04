import { describe, expect, it } from 'vitest';
import { headerValue, locationUrl } from '../../src/util/headers.ts';

describe('headerValue, the one look-up of a response header', () => {
  const headers: [string, string][] = [['Content-Type', 'text/turtle'], ['LOCATION', '/a'], ['location', '/b'], ['X-Loc', 'no']];

  it('finds a header whatever the case of its name, and takes the first of a repeated one', () => {
    expect(headerValue(headers, 'content-type')).toBe('text/turtle');
    expect(headerValue(headers, 'location')).toBe('/a');
  });

  it('answers undefined for a header that is not there, or no headers at all', () => {
    expect(headerValue(headers, 'etag')).toBeUndefined();
    expect(headerValue(headers, 'loc')).toBeUndefined();
    expect(headerValue(undefined, 'location')).toBeUndefined();
    expect(headerValue([], 'location')).toBeUndefined();
  });
});

describe('locationUrl, where a Location header leads', () => {
  const latin1 = (s: string, enc: BufferEncoding = 'utf8') => Buffer.from(s, enc).toString('latin1');

  it('percent-encodes each byte past ASCII as it came, whether or not the bytes are UTF-8', () => {
    expect(locationUrl(latin1('/café'), 'http://h/x').href).toBe('http://h/caf%C3%A9');
    expect(locationUrl(latin1('/café', 'latin1'), 'http://h/x').href).toBe('http://h/caf%E9');
    expect(locationUrl(latin1(' http://bücher.example/ü '), 'http://h/x').href).toBe('http://xn--bcher-kva.example/%C3%BC');
  });

  it('takes text past one byte a character as UTF-8, and throws on no URL', () => {
    expect(locationUrl('/😀', 'http://h/').href).toBe('http://h/%F0%9F%98%80');
    expect(() => locationUrl('http://[bad', 'http://h/')).toThrow();
  });
});
