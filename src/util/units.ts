import { UserError } from './errors.ts';

const TIME: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, mo: 2_592_000_000, y: 31_536_000_000 };
const BYTES: Record<string, number> = { '': 1, b: 1, k: 1e3, kb: 1e3, kib: 1024, m: 1e6, mb: 1e6, mib: 1024 ** 2, g: 1e9, gb: 1e9, gib: 1024 ** 3 };

/** "500ms", "30s", "10m", "1h", "2d", "6mo"; a bare number is seconds. Returns milliseconds. */
export function parseDuration(text: string, flag = 'duration'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? (m[2] || 's').toLowerCase() : '';
  if (!m || TIME[unit] === undefined) throw new UserError(`${flag} '${text}' is not a duration: use e.g. 500ms, 30s, 10m, 1h, 2d`);
  return Number(m[1]) * TIME[unit];
}

/** "10MiB", "500k", "2GB"; a bare number is bytes. */
export function parseBytes(text: string, flag = 'size'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? m[2].toLowerCase() : '';
  if (!m || BYTES[unit] === undefined) throw new UserError(`${flag} '${text}' is not a size: use e.g. 500k, 10MiB, 2GB`);
  return Math.round(Number(m[1]) * BYTES[unit]);
}

export function parseCount(text: string, flag: string): number {
  const n = Number(text.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 0) throw new UserError(`${flag} '${text}' must be a whole number ≥ 0`);
  return n;
}

/** Parses an ISO date or datetime, or the word "now". */
export function parseTime(text: string, flag = 'time'): number {
  if (text === 'now') return Date.now();
  const t = Date.parse(text);
  if (Number.isNaN(t)) throw new UserError(`${flag} '${text}' is not a date: use ISO 8601, e.g. 2025-01-01 or 2025-01-01T12:00:00Z`);
  return t;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
}

/** `n word` with an English plural: `word + s`, or `many` where that is wrong (entry, entries). */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
