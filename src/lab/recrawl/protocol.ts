import { DAY, MONTH, type StrategyBounds } from '../../schedule/types.ts';
import { DEFAULT_BOUNDS } from '../../schedule/bounds.ts';
import { OptionError } from '../../util/errors.ts';
import { documentCount, meanChangeIntervalMs, type HistorySet } from './histories.ts';

const YEAR = 365 * DAY;

/**
 * How a re-crawl experiment is run. `lab`: every document's whole history (the lab's own protocol
 * before #15). `seed`: seed 000 section 4.3: "we simulated a crawl for each document over 3 years",
 * documents with at least 3 years of history, intervals 1 day to 6 months. Where the seed is silent
 * the choice is written here and in docs/strategies.md, with its measured effect.
 */
export interface Protocol {
  name: 'lab' | 'seed';
  /** Simulated span of each document (absent: its whole history). */
  windowMs?: number;
  /** Which span of a longer history: the first `windowMs` after creation (seed: not said), or the last. */
  windowAt: 'start' | 'end';
  /** Documents observed for less are left out. */
  minHistoryMs: number;
  bounds: StrategyBounds;
  /** Every adaptive strategy's first interval; absent: each strategy's own default (1 week; quiet: the maximum; nutch: 30 days). */
  startIntervalMs?: number;
}

export const PROTOCOLS: Record<Protocol['name'], Protocol> = {
  lab: { name: 'lab', windowAt: 'start', minHistoryMs: 0, bounds: DEFAULT_BOUNDS },
  seed: { name: 'seed', windowMs: 3 * YEAR, windowAt: 'start', minHistoryMs: 3 * YEAR, bounds: { minIntervalMs: DAY, maxIntervalMs: 6 * MONTH } },
};

export function getProtocol(name: string): Protocol {
  const p = Object.hasOwn(PROTOCOLS, name) ? PROTOCOLS[name as Protocol['name']] : undefined;
  if (!p) throw new OptionError('--protocol', `must be ${Object.keys(PROTOCOLS).join(' or ')} (got "${name}")`);
  return p;
}

/**
 * The documents and spans a protocol simulates. Each document keeps its whole history's mean change
 * interval (`meanIntervalMs`): seed 000 groups documents by "the number of revisions divided by the
 * history time" and gives gold "the average change frequency … based on the actual … revision
 * history", both over the whole history, not the simulated 3 years.
 */
export function applyProtocol(h: HistorySet, p: Protocol): HistorySet {
  if (p.windowMs === undefined && p.minHistoryMs <= 0) return h;
  const n = documentCount(h);
  const keep: number[] = [];
  for (let d = 0; d < n; d++) if (h.end[d]! - h.created[d]! >= p.minHistoryMs) keep.push(d);
  const created = new Float64Array(keep.length);
  const end = new Float64Array(keep.length);
  const mean = new Float64Array(keep.length);
  const starts = new Int32Array(keep.length + 1);
  const changes: number[] = [];
  keep.forEach((d, k) => {
    const span = h.end[d]! - h.created[d]!;
    const w = p.windowMs === undefined ? span : Math.min(span, p.windowMs);
    created[k] = p.windowAt === 'end' ? h.end[d]! - w : h.created[d]!;
    end[k] = created[k]! + w;
    mean[k] = meanChangeIntervalMs(h, d);
    for (let j = h.changeStart[d]!; j < h.changeStart[d + 1]!; j++) {
      const t = h.changes[j]!;
      if (t > created[k]! && t < end[k]!) changes.push(t);
    }
    starts[k + 1] = changes.length;
  });
  const left = n - keep.length;
  return {
    ids: keep.map((d) => h.ids[d]!),
    sources: keep.map((d) => h.sources[d]!),
    created,
    end,
    changeStart: starts,
    changes: Float64Array.from(changes),
    diagnostics: left ? [...h.diagnostics, `protocol ${p.name}: left out ${left} document(s) observed for less than ${Math.round(p.minHistoryMs / YEAR)} years`] : h.diagnostics,
    meanIntervalMs: mean,
  };
}
