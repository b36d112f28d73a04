import { UserError } from '../util/errors.ts';

/**
 * Reads a CLI time: an ISO date (`2025-01-01`, midnight UTC), an ISO datetime (`2025-01-01T12:00:00Z`; no
 * zone means UTC), `now`, or epoch milliseconds. Returns epoch ms.
 */
export function parseTime(text: string, what: string): number {
  const t = text.trim();
  if (t.toLowerCase() === 'now') return Date.now();
  if (/^\d{12,}$/.test(t)) return Number(t);
  const withZone = /^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(t) ? `${t}Z` : t;
  const ms = /^\d{4}-\d{2}(-\d{2})?([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(withZone) ? Date.parse(withZone) : NaN;
  if (Number.isNaN(ms)) throw new UserError(`${what}: cannot read ${JSON.stringify(text)} as a time: use an ISO date like 2025-01-01 or a datetime like 2025-01-01T12:00:00Z`);
  return ms;
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
