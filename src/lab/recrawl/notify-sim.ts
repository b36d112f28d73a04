import type { NotificationTally, Observation, StrategyBounds, StrategyContext } from '../../schedule/types.ts';
import type { SteppedStrategy } from '../../schedule/strategies/define.ts';
import { emptyTally } from '../../schedule/notifications.ts';
import { documentCount, meanChangeIntervalMs, type HistorySet } from './histories.ts';
import { announcements, channels, type Announcements, type Channels, type NotificationModel } from './notify-model.ts';
import type { SimulationResult } from './simulate.ts';

/** A simulation with notifications: per-document counts, and what the notifications cost and were worth. */
export interface NotifyRun extends SimulationResult {
  /** Sitemap polls and stream pages read: downloads, counted in every budget. */
  channelDownloads: number;
  /** Document downloads made on a notification, and how many found a change. */
  hinted: number;
  hintedChanged: number;
  /** Per document: how long its archived copy was out of date (ms), from the first change it missed to the download that caught it, or the end. */
  staleMs: Float64Array;
  /** Σ over captured changes of the time from the first change since the previous download to the download. */
  delayMs: number;
  /** Stopped at `maxDownloads`: the counts are partial, the run is beyond every budget compared. */
  exceeded: boolean;
}

export interface NotifySimOptions {
  model: NotificationModel;
  /** `ignore`: notifications are not read and cost nothing (the estimators); `strategy`: its `follows` decides (absent: always). */
  notices: 'ignore' | 'strategy';
  /** Stop once document and channel downloads pass this. */
  maxDownloads?: number;
}

/** A growable binary min-heap of (time, document); stale entries are skipped by the caller. */
class Heap {
  private t: number[] = [];
  private d: number[] = [];
  get size(): number {
    return this.t.length;
  }
  topTime(): number {
    return this.t[0]!;
  }
  private less(a: number, b: number): boolean {
    return this.t[a]! < this.t[b]! || (this.t[a] === this.t[b] && this.d[a]! < this.d[b]!);
  }
  private swap(a: number, b: number): void {
    [this.t[a], this.t[b]] = [this.t[b]!, this.t[a]!];
    [this.d[a], this.d[b]] = [this.d[b]!, this.d[a]!];
  }
  push(time: number, doc: number): void {
    this.t.push(time);
    this.d.push(doc);
    for (let i = this.t.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }
  pop(): number {
    const top = this.d[0]!;
    const lt = this.t.pop()!;
    const ld = this.d.pop()!;
    const n = this.t.length;
    if (n > 0) {
      this.t[0] = lt;
      this.d[0] = ld;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        let m = i;
        if (l < n && this.less(l, m)) m = l;
        if (l + 1 < n && this.less(l + 1, m)) m = l + 1;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }
}

/**
 * One strategy over every document, downloads interleaved in time with the polls of each synthetic
 * host's sitemap or stream (src/lab/recrawl/notify-model.ts). At each poll, a URL the notification says
 * changed since its last download (lastmod newer than it, or a stream member) is offered to the
 * strategy (`follows`, with its host's tally); followed, it is downloaded at the poll and marked
 * `notified`. The strategy records each download of a host's URL in the host's tally as it happens
 * (`notified` does), so no decision sees the future. Same capture rule as `simulate`; gold is given each document's true mean.
 */
class NotifySim {
  readonly n: number;
  readonly downloads: Int32Array;
  readonly captured: Int32Array;
  readonly staleMs: Float64Array;
  readonly last: Float64Array;
  readonly nextAt: Float64Array;
  readonly announced: Uint8Array;
  readonly cursor: Int32Array;
  readonly states: unknown[];
  readonly tallies: NotificationTally[];
  readonly heap = new Heap();
  readonly ctx: StrategyContext;
  readonly obs: Observation = { time: 0, changed: false, first: true, notified: false, announced: false };
  readonly ch: Channels;
  /** Per channel: the last poll time, and where the next lying-sitemap probe starts. */
  readonly polledAt: Float64Array;
  readonly rotate: Int32Array;
  /** Per channel: when it is read next, and the announcements waiting for that read. */
  readonly nextPoll: Float64Array;
  readonly pending: number[][];
  total = 0;
  channelDownloads = 0;
  hinted = 0;
  hintedChanged = 0;
  delayMs = 0;
  exceeded = false;

  constructor(
    readonly h: HistorySet,
    // biome-ignore lint/suspicious/noExplicitAny: any strategy, whatever its per-URL state
    readonly strategy: SteppedStrategy<any>,
    bounds: StrategyBounds,
    readonly o: NotifySimOptions,
  ) {
    const n = (this.n = documentCount(h));
    this.downloads = new Int32Array(n);
    this.captured = new Int32Array(n);
    this.staleMs = new Float64Array(n);
    this.last = new Float64Array(n);
    this.nextAt = new Float64Array(n);
    this.announced = new Uint8Array(n);
    this.cursor = h.changeStart.slice(0, n);
    this.states = new Array(n);
    this.ch = channels(h, o.notices === 'ignore' ? { ...o.model, scenario: 'none' } : o.model);
    this.tallies = this.ch.kinds.map(() => emptyTally());
    this.polledAt = new Float64Array(this.ch.kinds.length).fill(Number.NEGATIVE_INFINITY);
    this.rotate = new Int32Array(this.ch.kinds.length);
    this.nextPoll = new Float64Array(this.ch.kinds.length).fill(Number.NEGATIVE_INFINITY);
    this.pending = this.ch.kinds.map(() => []);
    this.ctx = { bounds };
  }

  private context(d: number): StrategyContext {
    this.ctx.trueMeanIntervalMs = meanChangeIntervalMs(this.h, d);
    const c = this.ch.channelOf[d]!;
    this.ctx.notifications = this.ch.kinds[c] === 'none' ? undefined : this.tallies[c];
    return this.ctx;
  }

  /** A download of d at t: what it captured, what the strategy makes of it, its next scheduled download. */
  download(d: number, t: number, notified: boolean): void {
    const { h, obs, strategy } = this;
    const ctx = this.context(d);
    obs.time = t;
    if (this.states[d] === undefined) {
      this.states[d] = strategy.initial(ctx);
      obs.first = true;
      obs.changed = false;
      obs.notified = false;
      obs.announced = false;
    } else {
      obs.first = false;
      const j0 = this.cursor[d]!;
      let j = j0;
      const stop = h.changeStart[d + 1]!;
      while (j < stop && h.changes[j]! <= t) j++;
      this.cursor[d] = j;
      obs.changed = j > j0;
      obs.notified = notified;
      const c = this.ch.channelOf[d]!;
      // A lying sitemap announced every URL at every poll since its last download.
      obs.announced = this.announced[d] === 1 || (this.ch.kinds[c] === 'lying' && this.polledAt[c]! > this.last[d]!);
      this.downloads[d]++;
      this.total++;
      if (notified) {
        this.hinted++;
        if (obs.changed) this.hintedChanged++;
      }
      if (obs.changed) {
        this.captured[d]++;
        this.staleMs[d] += t - h.changes[j0]!;
        this.delayMs += t - h.changes[j0]!;
      }
    }
    const interval = strategy.step(this.states[d], obs, ctx);
    if (!(interval > 0)) throw new Error(`strategy ${strategy.name} returned interval ${interval} for ${h.ids[d]}`);
    this.last[d] = t;
    this.announced[d] = 0;
    this.nextAt[d] = t + interval;
    if (t + interval <= h.end[d]!) this.heap.push(t + interval, d);
  }

  /** Scheduled downloads up to and including `until`. */
  runUntil(until: number): void {
    const { heap } = this;
    while (heap.size > 0 && heap.topTime() <= until && !this.exceeded) {
      const t = heap.topTime();
      const d = heap.pop();
      if (t !== this.nextAt[d] && this.states[d] !== undefined) continue; // rescheduled by a notified download
      this.download(d, t, false);
      this.checkBudget();
    }
  }

  checkBudget(): void {
    if (this.o.maxDownloads !== undefined && this.total + this.channelDownloads > this.o.maxDownloads) this.exceeded = true;
  }

  /** A notification that d changed (lastmod `change`) read at poll time t. */
  notice(d: number, t: number, change: number): boolean {
    if (!(t < this.h.end[d]!) || this.states[d] === undefined || change <= this.last[d]!) return true;
    this.announced[d] = 1;
    if (this.o.notices === 'ignore') return true;
    const follow = this.strategy.follows ? this.strategy.follows(this.context(d), t) : true;
    if (follow) {
      this.download(d, t, true);
      this.checkBudget();
    }
    return follow;
  }

  /**
   * The polls due at tick t: costs, and the announcements each carries (those made since the channel's
   * previous read: a strategy may read an untrusted source less often, `pollIntervalMs`).
   */
  poll(t: number, ann: Announcements, k: { i: number }, alive: (c: number) => boolean): void {
    for (; k.i < ann.time.length && ann.time[k.i]! <= t; k.i++) this.pending[this.ch.channelOf[ann.doc[k.i]!]!]!.push(k.i);
    const { pollMs } = this.o.model;
    this.ch.kinds.forEach((kind, c) => {
      if (kind === 'none' || !alive(c) || t < this.nextPoll[c]! || this.exceeded) return;
      const pending = this.pending[c]!;
      for (const i of pending) if (!this.exceeded) this.notice(ann.doc[i]!, t, ann.change[i]!);
      this.polledAt[c] = t;
      this.channelDownloads += kind === 'stream' ? Math.max(1, Math.ceil(pending.length / this.o.model.pageSize)) : Math.ceil(this.ch.docs[c]!.length / this.o.model.urlsPerSitemap);
      pending.length = 0;
      if (kind === 'lying') this.lie(c, t);
      const ctx = { bounds: this.ctx.bounds, notifications: this.tallies[c] };
      const wait = this.strategy.pollIntervalMs ? this.strategy.pollIntervalMs(ctx, pollMs) : pollMs;
      this.nextPoll[c] = t + Math.max(1, Math.round(wait / pollMs)) * pollMs;
    });
    this.checkBudget();
  }

  /** A lying sitemap at t: every live URL "changed now"; offered in turn until the strategy declines one. */
  private lie(c: number, t: number): void {
    const docs = this.ch.docs[c]!;
    for (let k = 0; k < docs.length && !this.exceeded; k++) {
      const d = docs[(this.rotate[c]! + k) % docs.length]!;
      if (this.h.created[d]! >= t || this.states[d] === undefined) continue;
      if (!this.notice(d, t, t)) {
        this.rotate[c] = (this.rotate[c]! + k + 1) % docs.length;
        return;
      }
    }
  }
}

// biome-ignore lint/suspicious/noExplicitAny: any strategy, whatever its per-URL state
export function simulateNotified(h: HistorySet, strategy: SteppedStrategy<any>, bounds: StrategyBounds, o: NotifySimOptions): NotifyRun {
  const sim = new NotifySim(h, strategy, bounds, o);
  const n = sim.n;
  let t0 = Infinity;
  let t1 = -Infinity;
  for (let d = 0; d < n; d++) {
    t0 = Math.min(t0, h.created[d]!);
    t1 = Math.max(t1, h.end[d]!);
    sim.heap.push(h.created[d]!, d);
  }
  let tick = t0;
  const span = sim.ch.docs.map((docs) => [Math.min(...docs.map((d) => h.created[d]!)), Math.max(...docs.map((d) => h.end[d]!))] as const);
  const alive = (c: number) => span[c]![0] < tick && tick < span[c]![1];
  const ann = announcements(h, sim.ch, o.model, t0);
  const k = { i: 0 };
  const silent = o.notices === 'ignore' || sim.ch.kinds.every((x) => x === 'none');
  if (!silent) {
    for (; tick <= t1 && !sim.exceeded; tick += o.model.pollMs) {
      sim.runUntil(tick);
      if (!sim.exceeded) sim.poll(tick, ann, k, alive);
    }
  }
  sim.runUntil(Infinity);
  // The tail: a change not caught before the end left the copy out of date from it to the end.
  for (let d = 0; d < n && !sim.exceeded; d++) {
    const j = sim.cursor[d]!;
    if (j < h.changeStart[d + 1]!) sim.staleMs[d] += h.end[d]! - h.changes[j]!;
  }
  return {
    strategy: strategy.name,
    downloads: sim.downloads,
    captured: sim.captured,
    channelDownloads: sim.channelDownloads,
    hinted: sim.hinted,
    hintedChanged: sim.hintedChanged,
    staleMs: sim.staleMs,
    delayMs: sim.delayMs,
    exceeded: sim.exceeded,
  };
}
