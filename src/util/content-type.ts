/** A Content-Type header value split into its lower-cased media type ('' when absent) and its charset parameter. */
export function parseContentType(value: string | undefined): { mediaType: string; charset?: string } {
  if (!value) return { mediaType: '' };
  const semi = value.indexOf(';');
  const mediaType = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  if (semi === -1) return { mediaType };
  const m = /;\s*charset\s*=\s*("?)([^";,\s]+)\1/i.exec(value);
  return m ? { mediaType, charset: m[2] } : { mediaType };
}
