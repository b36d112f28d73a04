/**
 * Retry-After (RFC 9110 §10.2.3) read strictly: `delay-seconds = 1*DIGIT` or an HTTP-date in one of
 * the three forms of §5.6.7. Anything else is no header at all. The result is always a finite wait:
 * an absurd number (20 digits) once became an Invalid Date, and NaN in the frontier's heap stalled
 * every host. How long is too long is the crawl's policy, not the parser's.
 */

/** The largest time a Date can hold (ECMA-262 §21.4.1.1). */
const MAX_TIME = 8.64e15;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const LONG_DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const MONTH = `(${MONTHS.join('|')})`;
// Sun, 06 Nov 1994 08:49:37 GMT
const IMF_FIXDATE = new RegExp(`^(?:${DAYS.join('|')}), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
// Sunday, 06-Nov-94 08:49:37 GMT
const RFC850_DATE = new RegExp(`^(?:${LONG_DAYS.join('|')}), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
// Sun Nov  6 08:49:37 1994
const ASCTIME_DATE = new RegExp(`^(?:${DAYS.join('|')}) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

function utc(year: number, month: string, day: number, h: number, m: number, s: number): number | undefined {
  const mon = MONTHS.indexOf(month);
  // 60 seconds is a leap second, which HTTP-date allows
  if (day < 1 || day > 31 || h > 23 || m > 59 || s > 60) return undefined;
  const t = Date.UTC(year, mon, day, h, m, Math.min(s, 59));
  // Date.UTC rolls 31 Feb over into March: such a date is not a date
  return new Date(t).getUTCDate() === day ? t : undefined;
}

/** An HTTP-date (any of RFC 9110's three forms) as ms since the epoch, or undefined. */
export function parseHttpDate(text: string, now: number = Date.now()): number | undefined {
  let m = IMF_FIXDATE.exec(text);
  if (m) return utc(Number(m[3]), m[2], Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = RFC850_DATE.exec(text);
  if (m) {
    // A two-digit year more than 50 years ahead is the most recent past year with those digits (§5.6.7).
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(m[3]);
    if (year > thisYear + 50) year -= 100;
    return utc(year, m[2], Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  m = ASCTIME_DATE.exec(text);
  if (m) return utc(Number(m[6]), m[1], Number(m[2].trim()), Number(m[3]), Number(m[4]), Number(m[5]));
  return undefined;
}

/** The wait a Retry-After value asks for, in ms: finite and ≥ 0, or undefined when the value is not valid. */
export function parseRetryAfterMs(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_TIME); // 20 digits is a number, just a huge one
  const at = parseHttpDate(text, now);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/** Retry-After as the time it names; always a valid Date (clamped to the last one there is), or undefined. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): Date | undefined {
  const wait = parseRetryAfterMs(value, now);
  return wait === undefined ? undefined : new Date(Math.min(now + wait, MAX_TIME));
}
