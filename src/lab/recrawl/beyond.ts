/**
 * Beyond the seed: datamonitor's candidate strategies (quiet, source) against every seed strategy
 * (gold included) on one history set: micro F1 at the candidate's own setting, and recall at an equal
 * number of downloads (its one aggressiveness parameter, the interval factor c in interval = c/λ̂,
 * bisected so that it downloads no more than the peer). bench/recrawl-beyond.bench.ts prints these
 * rows as bench/RECRAWL-BEYOND.md and `lab report` (provider recrawl-beyond) states the docs' claims
 * from them: one copy of the experiment for both.
 */
import { DEFAULT_BOUNDS } from '../../schedule/bounds.ts';
import { SEED_STRATEGIES, strategies } from '../../schedule/strategies/index.ts';
import { QUIET_OPTIONS } from '../../schedule/strategies/quiet.ts';
import { rateStrategy } from '../../schedule/strategies/rate.ts';
import { SOURCE_OPTIONS, sourceStrategy } from '../../schedule/strategies/source.ts';
import type { SteppedStrategy } from '../../schedule/strategies/define.ts';
import type { HistorySet } from './histories.ts';
import { report, type Metrics } from './metrics.ts';
import { simulate } from './simulate.ts';
import { simulateOnline } from './simulate-online.ts';

export interface BeyondCandidate {
  name: 'quiet' | 'source';
  /** Its interval factor at its own setting. */
  c0: number;
  run(h: HistorySet, c: number): Metrics;
  /** Peers besides the seed strategies. */
  peers: string[];
}

// biome-ignore lint/suspicious/noExplicitAny: any strategy, whatever its per-URL state
const simulated = (h: HistorySet, s: SteppedStrategy<any>): Metrics => report(h, simulate(h, s, DEFAULT_BOUNDS)).overall;

export const BEYOND_CANDIDATES: BeyondCandidate[] = [
  { name: 'quiet', c0: QUIET_OPTIONS.intervalFactor, peers: ['poisson'], run: (h, c) => simulated(h, rateStrategy({ ...QUIET_OPTIONS, intervalFactor: c })) },
  {
    // source needs its source's tally of past downloads: the online simulator (every document interleaved in time).
    name: 'source', c0: SOURCE_OPTIONS.intervalFactor, peers: ['poisson', 'quiet'],
    run: (h, c) => report(h, simulateOnline(h, sourceStrategy({ ...SOURCE_OPTIONS, intervalFactor: c }), DEFAULT_BOUNDS)).overall,
  },
];

/** The candidate with the most downloads not above `target`, by bisection on log c (downloads fall as c grows, not strictly). */
export function atDownloads(cand: BeyondCandidate, h: HistorySet, target: number, steps = 22): { c: number; m: Metrics } | undefined {
  let lo = Math.log(0.02);
  let hi = Math.log(50);
  let best: { c: number; m: Metrics } | undefined;
  for (let k = 0; k < steps; k++) {
    const mid = (lo + hi) / 2;
    const m = cand.run(h, Math.exp(mid));
    if (m.downloads > target) lo = mid;
    else {
      hi = mid;
      if (!best || m.downloads > best.m.downloads) best = { c: Math.exp(mid), m };
    }
  }
  return best;
}

export interface BeyondPeerRow {
  peer: string;
  peerMetrics: Metrics;
  /** Candidate − peer micro F1, both at their own settings. */
  f1Margin: number;
  /** The candidate at no more downloads than the peer; undefined for week (10–25× the downloads: minutes of bisection) or when no c gets that low. */
  equal?: { c: number; m: Metrics; recallMargin: number };
}

export interface BeyondResult {
  candidate: BeyondCandidate['name'];
  own: Metrics;
  rows: BeyondPeerRow[];
}

/**
 * Every seed strategy and the candidate's other peers against the candidate on one history set.
 * `equalPeers`: only these get the equal-download bisection (each costs `steps` simulations; CI asks for gold's only).
 */
export function runBeyond(cand: BeyondCandidate, h: HistorySet, o: { steps?: number; equalPeers?: string[] } = {}): BeyondResult {
  const own = cand.run(h, cand.c0);
  const rows = [...SEED_STRATEGIES, ...cand.peers].map((peer): BeyondPeerRow => {
    const p = simulated(h, strategies[peer]!);
    const eq = peer === 'week' || (o.equalPeers && !o.equalPeers.includes(peer)) ? undefined : atDownloads(cand, h, p.downloads, o.steps);
    return { peer, peerMetrics: p, f1Margin: own.f1Micro - p.f1Micro, equal: eq && { ...eq, recallMargin: eq.m.recallMicro - p.recallMicro } };
  });
  return { candidate: cand.name, own, rows };
}
