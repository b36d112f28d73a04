import { MinHeap } from '../util/heap.ts';
import { HostTiming, type HostTimingOptions, type ReleaseOutcome } from './politeness.ts';
import type { Frontier, FrontierEntry } from './types.ts';

export type { FrontierEntry } from './types.ts';

/**
 * The breadth-first frontier (Mercator's back queues): one queue per host, and a host is offered
 * only when politeness lets it be fetched now. Two heaps of hosts, by ready time and by the key of
 * their best entry, make each pop O(log hosts) at any crawl size.
 */
interface HostQueue {
  host: string;
  queue: MinHeap<FrontierEntry>;
  /** Whether the host sits in one of the two heaps now. */
  scheduled: boolean;
}

export class HostQueues implements Frontier {
  private readonly timing: HostTiming;
  private hosts = new Map<string, HostQueue>();
  private waiting = new MinHeap<HostQueue>();
  private ready = new MinHeap<HostQueue>();
  private count = 0;

  constructor(opts: HostTimingOptions) {
    this.timing = new HostTiming(opts);
  }

  get size(): number {
    return this.count;
  }

  get hostCount(): number {
    return this.hosts.size;
  }

  private queueOf(host: string): HostQueue {
    let q = this.hosts.get(host);
    if (!q) this.hosts.set(host, (q = { host, queue: new MinHeap(), scheduled: false }));
    return q;
  }

  private schedule(q: HostQueue): void {
    if (q.scheduled || q.queue.size === 0 || !this.timing.hasRoom(q.host)) return;
    q.scheduled = true;
    this.waiting.push(q, this.timing.clock(q.host).readyAt);
  }

  push(entry: FrontierEntry): void {
    const q = this.queueOf(entry.host);
    q.queue.push(entry, entry.key);
    this.count++;
    this.schedule(q);
  }

  setDelay(host: string, delayMs: number): void {
    this.timing.setDelay(host, delayMs);
  }

  pop(now: number): FrontierEntry | undefined {
    while (this.waiting.size > 0 && (this.waiting.peekKey() as number) <= now) {
      const w = this.waiting.pop() as HostQueue;
      // A back-off may have moved the host's time since it was queued.
      const readyAt = this.timing.clock(w.host).readyAt;
      if (w.queue.size === 0) w.scheduled = false;
      else if (readyAt > now) this.waiting.push(w, readyAt);
      else this.ready.push(w, w.queue.peekKey() as number);
    }
    let q = this.ready.pop();
    while (q && (q.queue.size === 0 || !this.timing.ready(q.host, now))) {
      // A host drained while it waited its turn has nothing left: it leaves the heaps until a push.
      if (q.queue.size === 0) q.scheduled = false;
      else this.waiting.push(q, this.timing.clock(q.host).readyAt);
      q = this.ready.pop();
    }
    if (!q) return undefined;
    q.scheduled = false;
    const entry = q.queue.pop() as FrontierEntry;
    this.count--;
    this.timing.start(q.host, now);
    this.schedule(q);
    return entry;
  }

  nextReadyAt(): number | undefined {
    if (this.ready.size > 0) return 0;
    return this.waiting.peekKey();
  }

  release(host: string, now: number, outcome: ReleaseOutcome): void {
    this.timing.release(host, now, outcome);
    this.schedule(this.queueOf(host));
  }

  failures(host: string): number {
    return this.timing.failures(host);
  }

  drain(host: string): FrontierEntry[] {
    const q = this.hosts.get(host);
    if (!q) return [];
    const out: FrontierEntry[] = [];
    for (let e = q.queue.pop(); e; e = q.queue.pop()) out.push(e);
    this.count -= out.length;
    return out;
  }
}
