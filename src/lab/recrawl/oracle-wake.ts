import type { StrategyBounds } from '../../schedule/types.ts';
import { clampInterval } from '../../schedule/bounds.ts';
import { changeCursors, changedBy, documentCount, meanChangeIntervalMs, type HistorySet } from './histories.ts';
import type { SimulationResult } from './simulate.ts';

/** A document's directory: its id up to the last slash (tldr-pages `pages/common`, cmake-help `Help/variable`). */
export function directoryOf(id: string): string {
  const i = id.lastIndexOf('/');
  return i < 0 ? '' : id.slice(0, i);
}

export interface MassEdit {
  time: number;
  /** Every document of the directory alive at `time`, touched or not: a crawler would wake them all. */
  docs: number[];
}

/**
 * Edits that touched at least `share` of a directory's live documents (and at least `minDocs` of
 * them) at one instant: a commit or release reformatting a whole folder. Read from the future, so
 * what a wake-up on them gains is a ceiling for any detector of such edits.
 */
export function massEdits(h: HistorySet, share: number, minDocs: number): MassEdit[] {
  const n = documentCount(h);
  const byDir = new Map<string, number[]>();
  const touched = new Map<string, number>();
  for (let d = 0; d < n; d++) {
    const dir = directoryOf(h.ids[d]!);
    let members = byDir.get(dir);
    if (!members) byDir.set(dir, (members = []));
    members.push(d);
    for (let j = h.changeStart[d]!; j < h.changeStart[d + 1]!; j++) {
      const key = `${h.changes[j]!}\u0000${dir}`;
      touched.set(key, (touched.get(key) ?? 0) + 1);
    }
  }
  const out: MassEdit[] = [];
  for (const [key, count] of touched) {
    if (count < minDocs) continue;
    const [t, dir] = key.split('\u0000') as [string, string];
    const time = Number(t);
    const alive = byDir.get(dir)!.filter((d) => h.created[d]! < time && time < h.end[d]!);
    if (count >= share * alive.length) out.push({ time, docs: alive });
  }
  return out.sort((a, b) => a.time - b.time);
}

/**
 * gold's schedule, plus a wake-up `delayMs` after each mass edit: every document of the directory
 * not downloaded since the edit is downloaded then, and its schedule restarts from there.
 */
export function simulateGoldWake(h: HistorySet, edits: MassEdit[], delayMs: number, bounds: StrategyBounds): SimulationResult {
  const n = documentCount(h);
  const downloads = new Int32Array(n);
  const captured = new Int32Array(n);
  const interval = new Float64Array(n);
  const last = new Float64Array(n);
  const next = new Float64Array(n);
  const ptr = changeCursors(h);
  for (let d = 0; d < n; d++) {
    interval[d] = clampInterval(meanChangeIntervalMs(h, d), bounds);
    last[d] = h.created[d]!;
    next[d] = last[d]! + interval[d]!;
  }
  const download = (d: number, t: number): void => {
    downloads[d]!++;
    if (changedBy(h, d, ptr, t)) captured[d]!++;
    last[d] = t;
    next[d] = t + interval[d]!;
  };
  const until = (d: number, t: number): void => {
    while (next[d]! <= t && next[d]! <= h.end[d]!) download(d, next[d]!);
  };
  const wakes = edits.map((e) => ({ at: e.time + delayMs, e })).sort((a, b) => a.at - b.at);
  for (const { at, e } of wakes) {
    for (const d of e.docs) {
      until(d, at);
      if (last[d]! < e.time && at <= h.end[d]!) download(d, at);
    }
  }
  for (let d = 0; d < n; d++) until(d, h.end[d]!);
  return { strategy: 'gold+wake', downloads, captured };
}
