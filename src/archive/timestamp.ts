/**
 * The web archive's 14-digit timestamp, yyyyMMddHHmmss in UTC (17 digits with milliseconds): Wayback URLs,
 * CDX lines, and the names of the WARC files this archive writes.
 */
export function timestampOf(ms: number, withMillis = false): string {
  const iso = new Date(ms).toISOString(); // 2025-01-02T03:04:05.678Z
  const ts = iso.slice(0, 4) + iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(11, 13) + iso.slice(14, 16) + iso.slice(17, 19);
  return withMillis ? ts + iso.slice(20, 23) : ts;
}
