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
