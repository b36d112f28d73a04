import { describe, expect, it } from 'vitest';
import { headerText, headerValue, locationUrl, redirectTarget } from '../../src/util/headers.ts';

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

describe('redirectTarget, the one reading of a redirect', () => {
  const utf8 = (s: string) => Buffer.from(s, 'utf8').toString('latin1'); // as a header comes off the wire

  it('is undefined for a status that does not redirect or a redirect without Location', () => {
    expect(redirectTarget(200, [['Location', '/a']], 'http://h/')).toBeUndefined();
    expect(redirectTarget(304, [['Location', '/a']], 'http://h/')).toBeUndefined();
    expect(redirectTarget(301, [], 'http://h/')).toBeUndefined();
  });

  it('resolves the Location against the base, and gives it as the server meant it for messages', () => {
    const to = redirectTarget(303, [['location', utf8(' /café ')]], 'http://h/x/')!;
    expect(to.url?.href).toBe('http://h/caf%C3%A9');
    expect(to.text).toBe('/café');
    const bad = redirectTarget(302, [['Location', utf8('http://[café')]], 'http://h/')!;
    expect(bad.url).toBeUndefined();
    expect(bad.text).toBe('http://[café');
  });

  it('reads header bytes as UTF-8 only when they are UTF-8', () => {
    expect(headerText(utf8('/naïve'))).toBe('/naïve');
    expect(headerText('/caf\xe9')).toBe('/caf\xe9'); // a latin1 byte that is no UTF-8: as it came
    expect(headerText('/😀')).toBe('/😀'); // text set by code, not bytes
  });
});
