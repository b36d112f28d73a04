import type { Observation, StrategyBounds, StrategyContext } from '../../schedule/types.ts';
import type { SteppedStrategy } from '../../schedule/strategies/define.ts';
import { SourcePool } from '../../schedule/source-prior.ts';
import { changeCursors, changedBy, documentCount, meanChangeIntervalMs, type HistorySet } from './histories.ts';
import type { SimulationResult } from './simulate.ts';

/**
 * `simulate`, but every document's downloads interleaved in time order across the whole set, so a
 * strategy can be given what the other URLs of its source have shown so far (`ctx.sourcePrior`).
 * No leakage: a download at time t is handed the tally of re-downloads processed before it, all
 * made at or before t (events leave a min-heap by time; ties by document index), and a re-download
 * enters the tally only after the strategy has used it. A document's source is its history `source`
 * field (one dataset per shared file); the URL's own past re-downloads are in its source's tally too,
 * as they would be live. Same conventions as `simulate` otherwise: strategies that ignore the context
 * give exactly the same result.
 */
// biome-ignore lint/suspicious/noExplicitAny: any strategy, whatever its per-URL state
export function simulateOnline(h: HistorySet, strategy: SteppedStrategy<any>, bounds: StrategyBounds): SimulationResult {
  const n = documentCount(h);
  const downloads = new Int32Array(n);
  const captured = new Int32Array(n);
  const { created, end } = h;
  const pools = new Map<string, SourcePool>();
  const poolOf: SourcePool[] = new Array(n);
  for (let d = 0; d < n; d++) {
    const key = h.sources[d] ?? '';
    let p = pools.get(key);
    if (!p) pools.set(key, (p = new SourcePool()));
    poolOf[d] = p;
  }
  const ctx: StrategyContext = { bounds, trueMeanIntervalMs: undefined, sourcePrior: undefined };
  const obs: Observation = { time: 0, changed: false, first: true };
  const states: unknown[] = new Array(n);
  const cursor = changeCursors(h);
  const heap = new TimeHeap(n);
  for (let d = 0; d < n; d++) {
    heap.push(created[d]!, d);
  }
  const intervalOf = new Float64Array(n);
  while (heap.size > 0) {
    const t = heap.topTime();
    const d = heap.pop();
    ctx.trueMeanIntervalMs = meanChangeIntervalMs(h, d);
    ctx.sourcePrior = poolOf[d]!.prior;
    obs.time = t;
    let interval: number;
    if (states[d] === undefined) {
      states[d] = strategy.initial(ctx);
      obs.first = true;
      obs.changed = false;
      interval = strategy.step(states[d], obs, ctx);
      poolOf[d]!.scheduled(interval);
    } else {
      obs.first = false;
      obs.changed = changedBy(h, d, cursor, t);
      // The URL's totals before this download, for the source's fit (exposure = time since its first download).
      const urlChanges = captured[d]!;
      const urlExposureMs = downloads[d] === 0 ? 0 : t - intervalOf[d]! - created[d]!;
      downloads[d]++;
      if (obs.changed) captured[d]++;
      interval = strategy.step(states[d], obs, ctx);
      poolOf[d]!.record(intervalOf[d]!, obs.changed, urlChanges, urlExposureMs);
    }
    if (!(interval > 0)) throw new Error(`strategy ${strategy.name} returned interval ${interval} for ${h.ids[d]}`);
    intervalOf[d] = interval;
    if (t + interval <= end[d]!) heap.push(t + interval, d);
  }
  return { strategy: strategy.name, downloads, captured };
}

/** A binary min-heap of (time, document), ties broken by document index; typed arrays, no allocation per event. */
class TimeHeap {
  private readonly time: Float64Array;
  private readonly doc: Int32Array;
  size = 0;

  constructor(capacity: number) {
    this.time = new Float64Array(capacity);
    this.doc = new Int32Array(capacity);
  }

  private less(a: number, b: number): boolean {
    return this.time[a]! < this.time[b]! || (this.time[a] === this.time[b] && this.doc[a]! < this.doc[b]!);
  }

  private swap(a: number, b: number): void {
    const t = this.time[a]!;
    this.time[a] = this.time[b]!;
    this.time[b] = t;
    const d = this.doc[a]!;
    this.doc[a] = this.doc[b]!;
    this.doc[b] = d;
  }

  push(time: number, doc: number): void {
    let i = this.size++;
    this.time[i] = time;
    this.doc[i] = doc;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  topTime(): number {
    return this.time[0]!;
  }

  pop(): number {
    const top = this.doc[0]!;
    const last = --this.size;
    if (last > 0) {
      this.time[0] = this.time[last]!;
      this.doc[0] = this.doc[last]!;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < last && this.less(l, m)) m = l;
        if (r < last && this.less(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }
}
