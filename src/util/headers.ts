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
