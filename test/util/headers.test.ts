import { describe, expect, it } from 'vitest';
import { headerValue } from '../../src/util/headers.ts';

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
