import fs from 'node:fs';
import zlib from 'node:zlib';
import readline from 'node:readline';
import { UserError } from '../../util/errors.ts';

/**
 * Change histories (the JSON Lines format of shared/data/README.md), packed column-wise so the
 * simulator walks typed arrays: document d's changes are changes[changeStart[d] .. changeStart[d+1]).
 */
export interface HistorySet {
  ids: string[];
  sources: string[];
  created: Float64Array;
  end: Float64Array;
  changeStart: Int32Array;
  changes: Float64Array;
  /** Lines skipped or repaired, with the reason (bad input never stops the lab). */
  diagnostics: string[];
  /**
   * Each document's mean change interval when it is not this set's own (created, end) and changes:
   * a protocol that simulates a window of each history still groups documents, and tells `gold`,
   * by the whole history's mean, as seed 000 does (src/lab/recrawl/protocol.ts).
   */
  meanIntervalMs?: Float64Array;
}

export interface HistoryRecord {
  id: string;
  source?: string;
  created: string | number;
  end: string | number;
  changes: Array<string | number>;
}

class Builder {
  ids: string[] = [];
  sources: string[] = [];
  created: number[] = [];
  end: number[] = [];
  starts: number[] = [0];
  changes: number[] = [];
  diagnostics: string[] = [];

  add(rec: unknown, where: string): void {
    const r = rec as Partial<HistoryRecord> | null;
    if (!r || typeof r !== 'object' || !Array.isArray(r.changes)) return this.skip(where, 'not a history object with a "changes" array');
    const created = toTime(r.created);
    const end = toTime(r.end);
    if (Number.isNaN(created) || Number.isNaN(end) || !(end > created)) return this.skip(where, 'needs "created" < "end" as ISO dates');
    const times: number[] = [];
    let dropped = 0;
    for (const c of r.changes) {
      const t = toTime(c);
      if (t > created && t < end) times.push(t);
      else dropped++;
    }
    let sorted = true;
    for (let i = 1; i < times.length; i++) if (times[i]! < times[i - 1]!) sorted = false;
    if (!sorted) times.sort((a, b) => a - b);
    if (dropped || !sorted) this.diagnostics.push(`${where}: ${dropped ? `dropped ${dropped} change(s) outside (created, end)` : ''}${dropped && !sorted ? '; ' : ''}${sorted ? '' : 'sorted changes'}`);
    this.ids.push(String(r.id ?? where));
    this.sources.push(String(r.source ?? ''));
    this.created.push(created);
    this.end.push(end);
    for (const t of times) this.changes.push(t);
    this.starts.push(this.changes.length);
  }

  skip(where: string, why: string): void {
    this.diagnostics.push(`${where}: skipped, ${why}`);
  }

  build(): HistorySet {
    return {
      ids: this.ids,
      sources: this.sources,
      created: Float64Array.from(this.created),
      end: Float64Array.from(this.end),
      changeStart: Int32Array.from(this.starts),
      changes: Float64Array.from(this.changes),
      diagnostics: this.diagnostics,
    };
  }
}

function toTime(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return Date.parse(v);
  return NaN;
}

/** Histories from in-memory records (tests, synthetic data). */
export function historiesFromRecords(records: HistoryRecord[]): HistorySet {
  const b = new Builder();
  records.forEach((r, i) => b.add(r, `record ${i + 1}`));
  return b.build();
}

/** Streams one or more .jsonl or .jsonl.gz files into one set. */
export async function readHistories(files: string[]): Promise<HistorySet> {
  const b = new Builder();
  for (const file of files) {
    if (!fs.existsSync(file)) throw new UserError(`history file not found: ${file}`);
    const raw = fs.createReadStream(file);
    const input = file.endsWith('.gz') ? raw.pipe(zlib.createGunzip()) : raw;
    const lines = readline.createInterface({ input, crlfDelay: Infinity });
    let n = 0;
    try {
      for await (const line of lines) {
        n++;
        if (!line.trim()) continue;
        let rec: unknown;
        try {
          rec = JSON.parse(line);
        } catch {
          b.skip(`${file}:${n}`, 'not JSON');
          continue;
        }
        b.add(rec, `${file}:${n}`);
      }
    } catch (e) {
      throw new UserError(`cannot read ${file}: ${(e as Error).message} (expected JSON Lines, optionally gzip)`);
    }
  }
  return b.build();
}

export function documentCount(h: HistorySet): number {
  return h.created.length;
}

/** Mean change interval of a document: observed time / number of changes (∞ without changes), as in seed 000. */
export function meanChangeIntervalMs(h: HistorySet, d: number): number {
  if (h.meanIntervalMs) return h.meanIntervalMs[d]!;
  const n = h.changeStart[d + 1]! - h.changeStart[d]!;
  return n === 0 ? Infinity : (h.end[d]! - h.created[d]!) / n;
}

/** A change cursor per document, at its first change: what `changedBy` advances. */
export function changeCursors(h: HistorySet): Int32Array {
  return h.changeStart.slice(0, documentCount(h));
}

/**
 * Moves document d's change cursor past every change at or before `t`: true when it passed one, i.e.
 * a download at `t` sees a change since the previous download (several changes in between count once).
 */
export function changedBy(h: HistorySet, d: number, cursor: Int32Array, t: number): boolean {
  const before = cursor[d]!;
  const last = h.changeStart[d + 1]!;
  let j = before;
  while (j < last && h.changes[j]! <= t) j++;
  cursor[d] = j;
  return j > before;
}
