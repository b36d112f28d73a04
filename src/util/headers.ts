/** An HTTP header as a pair, its name as the server wrote it. */
export type HeaderPair = readonly [name: string, value: string];

/**
 * The value of the first header named `lowerName` (give it lower-case), names compared without
 * case; undefined when there is none. The first, as a client reads a field that must not repeat
 * (Location, Content-Type, Content-Encoding, ETag): a response that repeats one is not merged here.
 */
export function headerValue(headers: Iterable<HeaderPair> | undefined, lowerName: string): string | undefined {
  if (!headers) return undefined;
  // The length test first: it rules out nearly every other header without lower-casing its name.
  for (const [name, value] of headers) if (name.length === lowerName.length && name.toLowerCase() === lowerName) return value;
  return undefined;
}

/**
 * The URL a Location header leads to, resolved against `base`. Header values arrive as latin1 text, one
 * character a byte; a server that writes raw UTF-8 (or any byte past ASCII) is read as browsers and
 * curl read it: each such byte percent-encoded as it is, so `/café` in UTF-8 leads to `/caf%C3%A9`, not
 * to the double-encoded `/caf%C3%83%C2%A9`. Throws (as `new URL` does) when the value is no URL.
 */
export function locationUrl(value: string, base: string | URL): URL {
  const ascii = value.trim().replace(/[^\x00-\x7f]/gu, (c) => {
    const code = c.charCodeAt(0);
    // Above 0xff is text, not a byte (a header set by code, not read off the wire): its UTF-8 bytes.
    const bytes = code <= 0xff ? [code] : [...Buffer.from(c, 'utf8')];
    return bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  });
  return new URL(ascii, base);
}

/** The statuses that redirect (the Fetch standard's redirect statuses): what the crawl and replay follow. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Whether a response redirects: a status of REDIRECT_STATUSES with a Location. */
export function isRedirect(r: { status: number; headers: Iterable<HeaderPair> | undefined }): boolean {
  return REDIRECT_STATUSES.has(r.status) && headerValue(r.headers, 'location') !== undefined;
}

/** Where a redirect leads: the one reading of a Location for the crawl, import, log, export and replay. */
export interface RedirectTarget {
  /**
   * The Location as the server meant it, for messages: its bytes read as UTF-8 when they are UTF-8 (a
   * header arrives as latin1, and a raw UTF-8 `/café` would read `/cafÃ©`).
   */
  text: string;
  /** The URL it leads to (locationUrl against the base), of any scheme; undefined when it is no URL. */
  url?: URL;
}

/** The target of a response at `base` with `status` and `headers`; undefined when it is no redirect (isRedirect). */
export function redirectTarget(status: number, headers: Iterable<HeaderPair> | undefined, base: string | URL): RedirectTarget | undefined {
  if (!REDIRECT_STATUSES.has(status)) return undefined;
  const value = headerValue(headers, 'location');
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = locationUrl(value, base);
  } catch {
    url = undefined; // a Location that is no URL leads nowhere
  }
  return { text: headerText(value.trim()), url };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A header value (latin1, a character a byte) as text: its bytes as UTF-8 when they are valid UTF-8, else as they came. */
export function headerText(value: string): string {
  if (/^[\x00-\x7f]*$/.test(value) || /[^\x00-\xff]/.test(value)) return value;
  try {
    return UTF8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}
