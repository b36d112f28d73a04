import { PriorityFrontier } from './order/priority-frontier.ts';
import type { OrderingPolicy } from './order/policy.ts';
import { HostTiming, type DeferredOrigin, type HostTimingOptions, type ReleaseOutcome } from './politeness.ts';
import type { Frontier, FrontierEntry, SideClock } from './types.ts';
import { originOf } from './normalize.ts';

/**
 * A frontier ordered by importance (seed 001: backlinks, PageRank, location, similarity): the best
 * URL among the origins that politeness lets us fetch now. Priorities move as the crawl learns.
 */
export class OrderedFrontier implements Frontier, SideClock {
  private readonly timing: HostTiming;
  private readonly urls: PriorityFrontier;
  private readonly entries = new Map<string, FrontierEntry>();
  private readonly perOrigin = new Map<string, number>();
  /** One string per origin and per host for all the entries queued under them (bench/RESULTS.md#frontier-memory). */
  private readonly names = new Map<string, string>();

  constructor(private readonly policy: OrderingPolicy, opts: HostTimingOptions) {
    this.timing = new HostTiming(opts);
    this.urls = new PriorityFrontier(policy, { hostOf: originOf });
  }

  get size(): number {
    return this.entries.size;
  }

  get hostCount(): number {
    return this.timing.size;
  }

  push(entry: FrontierEntry): void {
    if (this.entries.has(entry.url)) return;
    entry.origin = this.intern(entry.origin);
    entry.host = this.intern(entry.host);
    this.entries.set(entry.url, entry);
    this.perOrigin.set(entry.origin, (this.perOrigin.get(entry.origin) ?? 0) + 1);
    this.timing.clock(entry.origin);
    this.urls.add(entry.url);
  }

  private intern(name: string): string {
    const known = this.names.get(name);
    if (known !== undefined) return known;
    this.names.set(name, name);
    return name;
  }

  private take(url: string): FrontierEntry {
    const e = this.entries.get(url) as FrontierEntry;
    this.entries.delete(url);
    const n = (this.perOrigin.get(e.origin) ?? 1) - 1;
    if (n > 0) this.perOrigin.set(e.origin, n);
    else this.perOrigin.delete(e.origin);
    return e;
  }

  pop(now: number, reject?: (entry: FrontierEntry) => boolean): FrontierEntry | undefined {
    for (;;) {
      const url = this.urls.pop((origin) => this.timing.ready(origin, now));
      if (url === undefined) return undefined;
      const e = this.take(url);
      if (reject?.(e)) continue;
      this.timing.start(e.origin, now);
      return e;
    }
  }

  nextReadyAt(): number | undefined {
    let next: number | undefined;
    for (const origin of this.perOrigin.keys()) {
      if (!this.timing.hasRoom(origin)) continue;
      const t = this.timing.readyAt(origin);
      if (next === undefined || t < next) next = t;
    }
    return next;
  }

  release(origin: string, now: number, outcome: ReleaseOutcome): boolean {
    return this.timing.release(origin, now, outcome);
  }

  acceptsWait(notBefore: number, now: number): boolean {
    return this.timing.acceptsWait(notBefore, now);
  }

  claim(origin: string, now: number, minDelayMs?: number): number {
    return this.timing.claim(origin, now, minDelayMs);
  }

  noteRequest(origin: string, time: number): void {
    this.timing.noteRequest(origin, time);
  }

  setDelay(origin: string, delayMs: number): void {
    this.timing.setDelay(origin, delayMs);
  }

  failures(origin: string): number {
    return this.timing.failures(origin);
  }

  backoffAfterFailure(origin: string): number {
    return this.timing.backoffAfterFailure(origin);
  }

  drain(origin: string): FrontierEntry[] {
    const out: FrontierEntry[] = [];
    for (let url = this.urls.popFromHost(origin); url !== undefined; url = this.urls.popFromHost(origin)) out.push(this.take(url));
    return out;
  }

  deferred(now: number): DeferredOrigin[] {
    return this.timing.deferred(now, this.perOrigin.keys());
  }

  onPageCrawled(page: { url: string; links: { url: string; anchorText?: string; context?: string }[]; text?: string }): void {
    this.policy.onPageCrawled(page);
  }
}
