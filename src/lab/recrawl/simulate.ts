import type { Observation, StrategyBounds, StrategyContext } from '../../schedule/types.ts';
import type { SteppedStrategy } from '../../schedule/strategies/define.ts';
import { changeCursors, changedBy, documentCount, meanChangeIntervalMs, type HistorySet } from './histories.ts';

/** Per document: re-downloads (the first download at `created` is not counted) and changes captured. */
export interface SimulationResult {
  strategy: string;
  downloads: Int32Array;
  captured: Int32Array;
}

export interface SimulateOptions {
  /** Every adaptive strategy's first interval (absent: each strategy's own default). */
  startIntervalMs?: number;
}

/**
 * Replays one strategy over every document: first download at `created`, then every interval the
 * strategy returns until `end`. A download captures a change when at least one change happened since
 * the previous download (several changes in between count as one captured, the rest are missed).
 */
// biome-ignore lint/suspicious/noExplicitAny: any strategy, whatever its per-URL state
export function simulate(h: HistorySet, strategy: SteppedStrategy<any>, bounds: StrategyBounds, o: SimulateOptions = {}): SimulationResult {
  const n = documentCount(h);
  const downloads = new Int32Array(n);
  const captured = new Int32Array(n);
  const ctx: StrategyContext = { bounds, trueMeanIntervalMs: undefined, startIntervalMs: o.startIntervalMs };
  const obs: Observation = { time: 0, changed: false, first: true };
  const { created, end } = h;
  const cursor = changeCursors(h);
  for (let d = 0; d < n; d++) {
    ctx.trueMeanIntervalMs = meanChangeIntervalMs(h, d);
    const state = strategy.initial(ctx);
    let t = created[d]!;
    const stop = end[d]!;
    obs.time = t;
    obs.first = true;
    obs.changed = false;
    let interval = strategy.step(state, obs, ctx);
    obs.first = false;
    let dl = 0;
    let cap = 0;
    for (;;) {
      if (!(interval > 0)) throw new Error(`strategy ${strategy.name} returned interval ${interval} for ${h.ids[d]}`);
      t += interval;
      if (t > stop) break;
      dl++;
      obs.changed = changedBy(h, d, cursor, t);
      if (obs.changed) cap++;
      obs.time = t;
      interval = strategy.step(state, obs, ctx);
    }
    downloads[d] = dl;
    captured[d] = cap;
  }
  return { strategy: strategy.name, downloads, captured };
}
