import { describe, it, expect } from 'vitest';
import { parseRetryAfter, parseRetryAfterMs, parseHttpDate } from '../../src/fetch/index.ts';

const now = Date.UTC(2026, 11, 1, 12, 0, 0);

describe('Retry-After is read as RFC 9110 says, and is always a finite time', () => {
  it.each([
    ['120', 120_000],
    [' 0 ', 0],
    ['315360000', 315_360_000_000], // ten years: the request is reported as it is; capping is the crawl's
  ])('delay-seconds %j waits %i ms', (value, ms) => {
    expect(parseRetryAfterMs(value, now)).toBe(ms);
    expect(parseRetryAfter(value, now)!.getTime()).toBe(now + ms);
  });

  it('a 20-digit number is a valid but absurd wait: a finite Date (the last one there is), never an Invalid Date', () => {
    const at = parseRetryAfter('99999999999999999999', now)!;
    expect(Number.isFinite(at.getTime())).toBe(true);
    expect(at.getTime()).toBe(8.64e15);
    expect(Number.isFinite(parseRetryAfterMs('99999999999999999999', now))).toBe(true);
  });

  it.each(['-5', '1.5', '+5', '5s', '0x10', '1e3', '', '   ', 'soon', 'Infinity', 'NaN', '2026-12-01T12:00:00Z', 'Tue, 01 Dec 2026 12:00:00 +0000', 'Tue, 32 Dec 2026 12:00:00 GMT', 'Tue, 31 Feb 2026 12:00:00 GMT'])(
    '%j is not a Retry-After: undefined',
    (value) => {
      expect(parseRetryAfter(value, now)).toBeUndefined();
      expect(parseRetryAfterMs(value, now)).toBeUndefined();
    },
  );

  it('all three HTTP-date forms name the same time', () => {
    const at = Date.UTC(2026, 11, 2, 8, 49, 37);
    expect(parseHttpDate('Wed, 02 Dec 2026 08:49:37 GMT', now)).toBe(at);
    expect(parseHttpDate('Wednesday, 02-Dec-26 08:49:37 GMT', now)).toBe(at);
    expect(parseHttpDate('Wed Dec  2 08:49:37 2026', now)).toBe(at);
    expect(parseRetryAfterMs('Wed, 02 Dec 2026 08:49:37 GMT', now)).toBe(at - now);
  });

  it("an rfc850 two-digit year more than 50 years ahead is last century's", () => {
    expect(new Date(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', now)!).getUTCFullYear()).toBe(1994);
  });

  it('a date in the past means now: a wait of 0', () => {
    expect(parseRetryAfterMs('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(0);
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', now)!.getTime()).toBe(now);
  });

  it('no header: undefined', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
