import { DAY, MONTH, WEEK } from '../../schedule/types.ts';
import { documentCount, meanChangeIntervalMs, type HistorySet } from './histories.ts';
import type { SimulationResult } from './simulate.ts';

/**
 * Seed 000's Table 2 groups documents by mean change interval; its text names "2 days to 1 week" and
 * "4 to 6 months" and about 300 documents in each of ~9 groups. These nine bands reconstruct it
 * (docs/strategies.md). A document without changes falls in the last band.
 */
export const GROUPS: ReadonlyArray<{ label: string; upToMs: number }> = [
  { label: '< 1 day', upToMs: DAY },
  { label: '1-2 days', upToMs: 2 * DAY },
  { label: '2 days-1 week', upToMs: WEEK },
  { label: '1 week-1 month', upToMs: MONTH },
  { label: '1-2 months', upToMs: 2 * MONTH },
  { label: '2-4 months', upToMs: 4 * MONTH },
  { label: '4-6 months', upToMs: 6 * MONTH },
  { label: '6 months-1 year', upToMs: 365 * DAY },
  { label: '> 1 year', upToMs: Infinity },
];

export function groupOf(meanIntervalMs: number): number {
  for (let g = 0; g < GROUPS.length - 1; g++) if (meanIntervalMs < GROUPS[g]!.upToMs) return g;
  return GROUPS.length - 1;
}

export interface Metrics {
  documents: number;
  changes: number;
  downloads: number;
  captured: number;
  /** Σ captured / Σ changes. */
  recallMicro: number;
  /** Σ captured / Σ downloads. */
  precisionMicro: number;
  /** Mean over documents with at least one change. */
  recallMacro: number;
  /** Mean over documents with at least one re-download. */
  precisionMacro: number;
  /** Harmonic mean of the micro recall and precision. */
  f1Micro: number;
}

export interface StrategyReport {
  strategy: string;
  overall: Metrics;
  groups: Array<Metrics & { group: string }>;
}

class Acc {
  documents = 0;
  changes = 0;
  downloads = 0;
  captured = 0;
  recallSum = 0;
  recallDocs = 0;
  precisionSum = 0;
  precisionDocs = 0;

  add(changes: number, downloads: number, captured: number): void {
    this.documents++;
    this.changes += changes;
    this.downloads += downloads;
    this.captured += captured;
    if (changes > 0) {
      this.recallSum += captured / changes;
      this.recallDocs++;
    }
    if (downloads > 0) {
      this.precisionSum += captured / downloads;
      this.precisionDocs++;
    }
  }

  metrics(): Metrics {
    const r = ratio(this.captured, this.changes);
    const p = ratio(this.captured, this.downloads);
    return {
      documents: this.documents,
      changes: this.changes,
      downloads: this.downloads,
      captured: this.captured,
      recallMicro: r,
      precisionMicro: p,
      recallMacro: ratio(this.recallSum, this.recallDocs),
      precisionMacro: ratio(this.precisionSum, this.precisionDocs),
      f1Micro: r + p > 0 ? (2 * r * p) / (r + p) : 0,
    };
  }
}

function ratio(a: number, b: number): number {
  return b > 0 ? a / b : 0;
}

export function documentGroups(h: HistorySet): Uint8Array {
  const n = documentCount(h);
  const g = new Uint8Array(n);
  for (let d = 0; d < n; d++) g[d] = groupOf(meanChangeIntervalMs(h, d));
  return g;
}

export function report(h: HistorySet, sim: SimulationResult, groups = documentGroups(h)): StrategyReport {
  const overall = new Acc();
  const perGroup = GROUPS.map(() => new Acc());
  for (let d = 0; d < groups.length; d++) {
    const changes = h.changeStart[d + 1]! - h.changeStart[d]!;
    overall.add(changes, sim.downloads[d]!, sim.captured[d]!);
    perGroup[groups[d]!]!.add(changes, sim.downloads[d]!, sim.captured[d]!);
  }
  return {
    strategy: sim.strategy,
    overall: overall.metrics(),
    groups: perGroup.map((a, i) => ({ group: GROUPS[i]!.label, ...a.metrics() })),
  };
}
