import { PriorityFrontier } from './order/priority-frontier.ts';
import type { OrderingPolicy } from './order/policy.ts';
import { HostTiming, type HostTimingOptions, type ReleaseOutcome } from './politeness.ts';
import type { Frontier, FrontierEntry } from './types.ts';
import { hostOf } from './normalize.ts';

/**
 * A frontier ordered by importance (seed 001: backlinks, PageRank, location, similarity): the best
 * URL among the hosts that politeness lets us fetch now. Priorities move as the crawl learns.
 */
export class OrderedFrontier implements Frontier {
  private readonly timing: HostTiming;
  private readonly urls: PriorityFrontier;
  private readonly entries = new Map<string, FrontierEntry>();
  private readonly perHost = new Map<string, number>();

  constructor(private readonly policy: OrderingPolicy, opts: HostTimingOptions) {
    this.timing = new HostTiming(opts);
    this.urls = new PriorityFrontier(policy, { hostOf });
  }

  get size(): number {
    return this.entries.size;
  }

  get hostCount(): number {
    return this.timing.size;
  }

  push(entry: FrontierEntry): void {
    if (this.entries.has(entry.url)) return;
    this.entries.set(entry.url, entry);
    this.perHost.set(entry.host, (this.perHost.get(entry.host) ?? 0) + 1);
    this.urls.add(entry.url);
  }

  private take(url: string): FrontierEntry {
    const e = this.entries.get(url) as FrontierEntry;
    this.entries.delete(url);
    const n = (this.perHost.get(e.host) ?? 1) - 1;
    if (n > 0) this.perHost.set(e.host, n);
    else this.perHost.delete(e.host);
    return e;
  }

  pop(now: number): FrontierEntry | undefined {
    const url = this.urls.pop((host) => this.timing.ready(host, now));
    if (url === undefined) return undefined;
    const e = this.take(url);
    this.timing.start(e.host, now);
    return e;
  }

  nextReadyAt(): number | undefined {
    let next: number | undefined;
    for (const host of this.perHost.keys()) {
      if (!this.timing.hasRoom(host)) continue;
      const t = this.timing.clock(host).readyAt;
      if (next === undefined || t < next) next = t;
    }
    return next;
  }

  release(host: string, now: number, outcome: ReleaseOutcome): void {
    this.timing.release(host, now, outcome);
  }

  setDelay(host: string, delayMs: number): void {
    this.timing.setDelay(host, delayMs);
  }

  failures(host: string): number {
    return this.timing.failures(host);
  }

  drain(host: string): FrontierEntry[] {
    const out: FrontierEntry[] = [];
    for (let url = this.urls.popFromHost(host); url !== undefined; url = this.urls.popFromHost(host)) out.push(this.take(url));
    return out;
  }

  onPageCrawled(page: { url: string; links: { url: string; anchorText?: string; context?: string }[]; text?: string }): void {
    this.policy.onPageCrawled(page);
  }
}
