/**
 * The frontier ordered by an OrderingPolicy, one queue per host and a heap of hosts keyed by their
 * best URL, so the crawler can take the best URL among the hosts politeness lets it fetch now.
 *
 * Priorities move as the crawl learns (backlinks grow, PageRank is recomputed): rather than
 * searching the heaps, a re-prioritised URL gets a new entry with a new version and the old entry
 * is skipped when it surfaces (lazy deletion). A global refresh ('all') rebuilds the heaps in O(n).
 */
import { RankedHeap } from './heap.ts';
import { hostnameOf } from '../normalize.ts';
import type { OrderingPolicy } from './policy.ts';

interface UrlEntry {
  p: number;
  seq: number;
  url: string;
  version: number;
}

interface HostEntry {
  p: number;
  seq: number;
  host: string;
  version: number;
}

interface QueuedUrl {
  host: string;
  seq: number;
  priority: number;
  version: number;
}

interface HostQueue {
  /** The host's key string, shared by every URL queued under it (a fresh one per URL was ~70 heap bytes each). */
  host: string;
  heap: RankedHeap<UrlEntry>;
  live: number;
  version: number;
  /** The entry the host heap currently ranks this host by. */
  announced: UrlEntry | undefined;
}

export interface PriorityFrontierOptions {
  /** The politeness unit; the URL's hostname by default. */
  hostOf?: (url: string) => string;
}

export interface FrontierPeek {
  url: string;
  priority: number;
}

export class PriorityFrontier {
  private readonly queued = new Map<string, QueuedUrl>();
  private readonly hosts = new Map<string, HostQueue>();
  private readonly hostHeap = new RankedHeap<HostEntry>();
  private readonly hostOf: (url: string) => string;
  private nextSeq = 0;
  /** One counter for all versions, so a host or URL that leaves and comes back cannot match an old entry. */
  private nextVersion = 0;

  constructor(readonly policy: OrderingPolicy, options: PriorityFrontierOptions = {}) {
    this.hostOf = options.hostOf ?? hostnameOf;
  }

  get size(): number {
    return this.queued.size;
  }

  get hostCount(): number {
    return this.hosts.size;
  }

  has(url: string): boolean {
    return this.queued.has(url);
  }

  /** Queues a URL; false when it is queued already. */
  add(url: string): boolean {
    if (this.queued.has(url)) return false;
    const key = this.hostOf(url);
    let hq = this.hosts.get(key);
    if (!hq) {
      hq = { host: key, heap: new RankedHeap(), live: 0, version: -1, announced: undefined };
      this.hosts.set(key, hq);
    }
    const q: QueuedUrl = { host: hq.host, seq: this.nextSeq++, priority: this.policy.priority(url), version: this.nextVersion++ };
    this.queued.set(url, q);
    hq.live++;
    this.pushEntry(url, q, hq);
    return true;
  }

  /**
   * The best URL among the hosts `readyHost` accepts (all hosts when omitted), removed from the
   * frontier. Hosts that are not ready keep their place.
   */
  pop(readyHost?: (host: string) => boolean): string | undefined {
    this.sync();
    const skipped: HostEntry[] = [];
    let url: string | undefined;
    while (this.hostHeap.size > 0) {
      const he = this.hostHeap.pop()!;
      const hq = this.hosts.get(he.host);
      if (!hq || he.version !== hq.version) continue;
      if (readyHost && !readyHost(he.host)) {
        skipped.push(he);
        continue;
      }
      url = this.takeBest(he.host, hq);
      break;
    }
    for (const he of skipped) this.hostHeap.push(he);
    return url;
  }

  /** The best URL of one host, removed from the frontier. */
  popFromHost(host: string): string | undefined {
    this.sync();
    const hq = this.hosts.get(host);
    return hq ? this.takeBest(host, hq) : undefined;
  }

  /** The best URL of one host and its priority, left in place. */
  bestForHost(host: string): FrontierPeek | undefined {
    this.sync();
    const hq = this.hosts.get(host);
    const top = hq && this.cleanTop(hq);
    return top ? { url: top.url, priority: top.p } : undefined;
  }

  /** Removes a URL (e.g. a robots.txt exclusion found late); false when it was not queued. */
  remove(url: string): boolean {
    const q = this.queued.get(url);
    if (!q) return false;
    this.queued.delete(url);
    const hq = this.hosts.get(q.host)!;
    hq.live--;
    if (hq.live === 0) this.hosts.delete(q.host);
    else this.announceHost(q.host, hq);
    return true;
  }

  /**
   * Drops the lowest-priority URL (the newest among equals) for a bounded buffer, and returns it.
   * A linear scan: the lab's limited-buffer model calls it, the live crawler does not.
   */
  dropLowest(): string | undefined {
    this.sync();
    let worst: string | undefined;
    let wp = Infinity;
    let ws = -1;
    for (const [url, q] of this.queued) {
      if (q.priority < wp || (q.priority === wp && q.seq > ws)) {
        worst = url;
        wp = q.priority;
        ws = q.seq;
      }
    }
    if (worst !== undefined) this.remove(worst);
    return worst;
  }

  /** The URL's current priority in the frontier, undefined when not queued. */
  priorityOf(url: string): number | undefined {
    this.sync();
    return this.queued.get(url)?.priority;
  }

  /** Pulls the policy's priority changes into the heaps. Called by every read. */
  sync(): void {
    const changed = this.policy.takeChanged?.();
    if (!changed) return;
    if (changed === 'all') return this.rebuild();
    for (const url of changed) {
      const q = this.queued.get(url);
      if (!q) continue;
      const p = this.policy.priority(url);
      if (p === q.priority) continue;
      q.priority = p;
      q.version = this.nextVersion++;
      const hq = this.hosts.get(q.host)!;
      this.pushEntry(url, q, hq);
      // Stale entries pile up under frequent changes: compact before they dominate the heap.
      if (hq.heap.size > 2 * hq.live + 64) this.compact(hq);
    }
  }

  private pushEntry(url: string, q: QueuedUrl, hq: HostQueue): void {
    const entry: UrlEntry = { p: q.priority, seq: q.seq, url, version: q.version };
    hq.heap.push(entry);
    this.announceHost(q.host, hq);
  }

  /** Publishes the host's current best in the host heap when it changed (older host entries become stale). */
  private announceHost(host: string, hq: HostQueue): void {
    const top = this.cleanTop(hq);
    if (!top || top === hq.announced) return;
    hq.announced = top;
    hq.version = this.nextVersion++;
    this.hostHeap.push({ p: top.p, seq: top.seq, host, version: hq.version });
    if (this.hostHeap.size > 2 * this.hosts.size + 64) {
      this.hostHeap.reset(this.hostHeap.items.filter((he) => this.hosts.get(he.host)?.version === he.version));
    }
  }

  private isLive(e: UrlEntry): boolean {
    return this.queued.get(e.url)?.version === e.version;
  }

  private cleanTop(hq: HostQueue): UrlEntry | undefined {
    let top = hq.heap.peek();
    while (top && !this.isLive(top)) {
      hq.heap.pop();
      top = hq.heap.peek();
    }
    return top;
  }

  private takeBest(host: string, hq: HostQueue): string | undefined {
    const top = this.cleanTop(hq);
    if (!top) return undefined;
    hq.heap.pop();
    this.queued.delete(top.url);
    hq.live--;
    if (hq.live === 0) this.hosts.delete(host);
    else this.announceHost(host, hq);
    return top.url;
  }

  private compact(hq: HostQueue): void {
    hq.heap.reset(hq.heap.items.filter((e) => this.isLive(e)));
  }

  private rebuild(): void {
    const perHost = new Map<string, UrlEntry[]>();
    for (const [url, q] of this.queued) {
      q.priority = this.policy.priority(url);
      q.version = this.nextVersion++;
      let list = perHost.get(q.host);
      if (!list) perHost.set(q.host, (list = []));
      list.push({ p: q.priority, seq: q.seq, url, version: q.version });
    }
    this.hostHeap.reset([]);
    for (const [host, list] of perHost) {
      const hq = this.hosts.get(host)!;
      hq.heap.reset(list);
      this.announceHost(host, hq);
    }
  }
}
