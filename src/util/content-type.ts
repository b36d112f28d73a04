/** The media type without parameters, lower-cased ("Text/Turtle; charset=utf-8" → "text/turtle"; '' for ''). */
export function essenceOf(mediaType: string): string {
  const semicolon = mediaType.indexOf(';');
  return (semicolon < 0 ? mediaType : mediaType.slice(0, semicolon)).trim().toLowerCase();
}

/** A Content-Type header value split into its lower-cased media type ('' when absent) and its charset parameter. */
export function parseContentType(value: string | undefined): { mediaType: string; charset?: string } {
  if (!value) return { mediaType: '' };
  const mediaType = essenceOf(value);
  if (!value.includes(';')) return { mediaType };
  const m = /;\s*charset\s*=\s*("?)([^";,\s]+)\1/i.exec(value);
  return m ? { mediaType, charset: m[2] } : { mediaType };
}
