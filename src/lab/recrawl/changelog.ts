/**
 * Change histories from GNU-style ChangeLogs (the upstream ChangeLogs Debian ships in
 * /usr/share/doc/PACKAGE/changelog.gz): every dated entry names the files it changed
 * ("* src/copy.c (copy_reg): …"), so every file is a document with a real change history.
 */
const DAY = 86_400_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The date of an entry header, `2022-04-15  Name <mail>` or the older `Mon Dec 12 10:00:00 1994  Name`; NaN otherwise. */
export function entryDate(line: string): number {
  let m = /^(\d{4})-(\d{2})-(\d{2})\s+\S/.exec(line);
  if (m) return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  m = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (\w{3}) +(\d{1,2}) [\d:]+ (?:[A-Z]{3,4} )?(\d{4})\s/.exec(line);
  if (m && MONTHS.includes(m[1]!)) return Date.UTC(Number(m[3]), MONTHS.indexOf(m[1]!), Number(m[2]));
  return Number.NaN;
}

/** The files an entry line names: `* a.c, lib/b.h (f): …` → [a.c, lib/b.h]. */
export function filesOf(line: string): string[] {
  const m = /^\s+\*\s+([^:(]+)/.exec(line);
  if (!m) return [];
  return m[1]!
    .split(/[,\s]+/)
    .map((t) => t.trim())
    .filter((t) => /^[\w.+-]+(\/[\w.+-]+)*$/.test(t) && (t.includes('.') || t.includes('/') || /^[A-Z][A-Za-z]+$/.test(t)));
}

export interface FileHistory {
  id: string;
  /** Days (epoch ms at 00:00 UTC) on which an entry named the file, ascending, distinct. */
  days: number[];
}

/** Every file's days of change in one ChangeLog text; `prefix` names the source (the package). */
export function parseChangeLog(text: string, prefix: string): { files: FileHistory[]; first: number; last: number } {
  const byFile = new Map<string, Set<number>>();
  let date = Number.NaN;
  let first = Infinity;
  let last = -Infinity;
  for (const line of text.split('\n')) {
    const d = entryDate(line);
    if (!Number.isNaN(d)) {
      // Dates far outside the project's life are typos in the file (e.g. 2102 for 2012): the entry is skipped.
      date = d > Date.UTC(1985, 0, 1) && d < Date.UTC(2030, 0, 1) ? d : Number.NaN;
      if (!Number.isNaN(date)) {
        first = Math.min(first, date);
        last = Math.max(last, date);
      }
      continue;
    }
    if (Number.isNaN(date)) continue;
    for (const f of filesOf(line)) {
      // The file, and every folder above it: a folder's listing (or a source browser's page for
      // it) changes whenever one of its files does, so folders give the faster-changing documents.
      const parts = f.split('/');
      const docs = [f, ...parts.slice(0, -1).map((_, i) => `${parts.slice(0, i + 1).join('/')}/`), ''];
      for (const doc of docs) {
        let s = byFile.get(doc);
        if (!s) byFile.set(doc, (s = new Set()));
        s.add(date);
      }
    }
  }
  // '' is the ChangeLog itself: every entry changes it.
  const files = [...byFile].map(([f, s]) => ({ id: f === '' ? `${prefix}/ChangeLog` : `${prefix}/${f}`, days: [...s].sort((a, b) => a - b) }));
  return { files, first, last };
}

/**
 * One history record (shared/data/README.md's format) per file: created = the first day an entry
 * names it (its creation or first edit: the file existed then), changes = every later day, at noon
 * (entries carry a date, not a time), end = the day after the ChangeLog's last entry.
 */
export function historyRecords(parsed: { files: FileHistory[]; last: number }, source: string, minYears = 3) {
  const end = parsed.last + DAY;
  return parsed.files
    .filter((f) => end - f.days[0]! >= minYears * 365 * DAY)
    .map((f) => ({
      id: f.id,
      source,
      created: new Date(f.days[0]!).toISOString(),
      end: new Date(end).toISOString(),
      changes: f.days.slice(1).map((d) => new Date(d + DAY / 2).toISOString()),
    }));
}
