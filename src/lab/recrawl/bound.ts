/**
 * How far above `gold` a re-crawl strategy can get on one history set (docs/strategies.md, "How far
 * above gold"). gold is told each document's true mean change interval; a live strategy knows only its
 * URLs' past downloads. Four oracles that know more than any live crawler, each at its best setting on
 * the set (a ceiling, not a tuned result):
 *   1. gold with its interval scaled by c;
 *   2. the Bayes bound: a posterior over each URL's rate whose prior is the oracle's histogram of every
 *      document's true rate (oracle-bayes.ts), used the Bayes-optimal way;
 *   3. bursts: gold plus a re-check Δ after every download that saw a change;
 *   4. mass edits: gold plus a wake-up of a whole directory a delay after an edit touched most of it
 *      (oracle-wake.ts), edits and their times read from the future;
 * and the live candidates (poisson, quiet, source) for reference, with the share of gold's downloads
 * that the maximum interval forces on any strategy. Used by bench/recrawl-bound.bench.ts and by the
 * lab report (src/lab/report/providers/recrawl-bound.ts), so both state the same numbers.
 */
import { DEFAULT_BOUNDS, clampInterval } from '../../schedule/bounds.ts';
import { DAY, type StrategyBounds } from '../../schedule/types.ts';
import { strategies } from '../../schedule/strategies/index.ts';
import { defineStrategy, type SteppedStrategy } from '../../schedule/strategies/define.ts';
import { source } from '../../schedule/strategies/source.ts';
import type { HistorySet } from './histories.ts';
import { report, type Metrics } from './metrics.ts';
import { simulate } from './simulate.ts';
import { simulateOnline } from './simulate-online.ts';
import { bayesStrategy, oracleLogPrior, rateGrid } from './oracle-bayes.ts';
import { massEdits, simulateGoldWake } from './oracle-wake.ts';

export interface Best<T> {
  setting: T;
  m: Metrics;
}

export interface GoldBound {
  gold: Metrics;
  /** Re-downloads the maximum interval forces on its own, as a share of gold's downloads. */
  forcedShare: number;
  goldFactor: Best<number>;
  bayes: Best<{ threshold: number; decay: number }>;
  /** Δ in days. */
  burst: Best<number>;
  wake: Best<{ share: number; days: number }>;
  live: { poisson: Metrics; quiet: Metrics; source: Metrics };
}

/** gold with its interval × `factor`, and, after a download that saw a change, a re-check after `recheckMs` (0: none). */
function goldVariant(factor: number, recheckMs: number): SteppedStrategy<Record<string, never>> {
  return defineStrategy({
    name: `gold×${factor}${recheckMs ? `+${recheckMs / DAY}d` : ''}`,
    summary: 'lab: gold scaled, with an optional re-check after a change',
    initial: () => ({}),
    step: (_s, obs, ctx) => clampInterval(obs.changed && recheckMs > 0 ? Math.min(recheckMs, factor * ctx.trueMeanIntervalMs!) : factor * ctx.trueMeanIntervalMs!, ctx.bounds),
  });
}

/** Re-downloads the maximum interval forces on its own: one per full maximum interval of each lifetime. */
function forcedDownloads(h: HistorySet, bounds: StrategyBounds): number {
  let n = 0;
  for (let d = 0; d < h.created.length; d++) n += Math.floor((h.end[d]! - h.created[d]!) / bounds.maxIntervalMs);
  return n;
}

function best<T>(settings: T[], f: (s: T) => Metrics): Best<T> {
  let top: Best<T> | undefined;
  for (const s of settings) {
    const m = f(s);
    if (!top || m.f1Micro > top.m.f1Micro) top = { setting: s, m };
  }
  return top!;
}

export function goldBound(h: HistorySet, bounds: StrategyBounds = DEFAULT_BOUNDS): GoldBound {
  const run = (s: Parameters<typeof simulate>[1]): Metrics => report(h, simulate(h, s, bounds)).overall;
  const gold = run(strategies.gold!);
  const rates = rateGrid();
  const logPrior = oracleLogPrior(h, rates);
  return {
    gold,
    forcedShare: gold.downloads ? forcedDownloads(h, bounds) / gold.downloads : 0,
    goldFactor: best([0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.15, 1.3, 1.5], (c) => run(goldVariant(c, 0))),
    bayes: best([0.05, 0.1, 0.15, 0.2].flatMap((threshold) => [1, 0.9].map((decay) => ({ threshold, decay }))), (s) => run(bayesStrategy({ rates, logPrior, bounds, ...s }))),
    burst: best([1, 3, 7, 14], (d) => run(goldVariant(1, d * DAY))),
    wake: best([0.5, 0.7, 0.9].flatMap((share) => [1, 3, 7].map((days) => ({ share, days }))), (w) => report(h, simulateGoldWake(h, massEdits(h, w.share, 3), w.days * DAY, bounds)).overall),
    live: { poisson: run(strategies.poisson!), quiet: run(strategies.quiet!), source: report(h, simulateOnline(h, source, bounds)).overall },
  };
}

/** F1 points of `m` above (+) or below (−) gold. */
export const overGold = (b: GoldBound, m: Metrics): number => 100 * (m.f1Micro - b.gold.f1Micro);
