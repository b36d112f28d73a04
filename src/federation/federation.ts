/**
 * The aggregator's view of a federation of archives (seed 000, section 2): what each archive
 * published about its capacity and holdings, refreshed every `refreshMs`, and the three things the
 * federation does with it:
 *
 *  - look-ups (TimeMap, TimeGate) ask only the archives whose holdings may contain the URL (an
 *    archive whose holdings are unknown, say because it is down or publishes none, is asked);
 *  - new URLs go to the archive the capacity-weighted rendezvous assignment names (weight: free
 *    capacity), or stay with an archive that already holds them; an archive that does not answer
 *    or refuses hands its URLs on to the next in the ranking;
 *  - every answer says which archives did not answer.
 */
import { aggregateTimeMap, closestAcross, readCapped, type AggregatedTimeMap, type Memento } from './timemap-aggregator.ts';
import type { CapacityDocument } from './capacity.ts';
import { PublishedHoldings } from './holdings.ts';
import { rankArchives, type ArchiveCapacity } from './rendezvous.ts';
import { normalizeUrl } from '../frontier/normalize.ts';

export interface FederationOptions {
  /** Base URLs of the archives (`serve`), as given: their ids in the assignment. */
  archives: string[];
  /** Write token of each archive (POST <base>/api/urls); an archive without one receives no URLs. */
  tokens?: ReadonlyMap<string, string>;
  /** Per archive and request (default 5000). */
  timeoutMs?: number;
  /** How long published capacity and holdings are trusted before they are read again (default 60 s). */
  refreshMs?: number;
}

export interface ArchiveState {
  archive: string;
  /** When capacity and holdings were last asked for (epoch ms; 0: never). */
  checkedAt: number;
  capacity?: CapacityDocument;
  capacityError?: string;
  holdings?: PublishedHoldings;
  holdingsEtag?: string;
  holdingsError?: string;
}

export interface Placement {
  archive: string;
  urls: string[];
  /** What the archive answered (its POST /api/urls body), or why it was passed over. */
  added?: number;
  error?: string;
}

export interface SubmitResult {
  /** URLs per archive that accepted them. */
  placed: Placement[];
  /** URLs no archive took, with why: resubmit them later. */
  unplaced: Array<{ url: string; why: string }>;
  /** Archives that were tried and failed, or could not take URLs at all. */
  passedOver: Array<{ archive: string; why: string }>;
  /** Why each URL went where it went: 'held' (the archive holds it already) or 'capacity'. */
  reasons: Record<string, 'held' | 'capacity'>;
}

const trimBase = (b: string) => b.replace(/\/+$/, '');

/** Largest capacity or holdings document read (a holdings filter of 50 million URLs is about 60 MB). */
const MAX_DOCUMENT_BYTES = 128 * 1024 * 1024;

const count = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** A capacity document as published, or undefined when it is not one: an archive that publishes garbage takes no URLs. */
function readCapacity(body: unknown): CapacityDocument | undefined {
  const d = body as Partial<CapacityDocument> | null;
  if (!d || typeof d !== 'object' || !count(d.capacity) || !count(d.monitored) || !count(d.free) || typeof d.acceptsUrls !== 'boolean') return undefined;
  return d as CapacityDocument;
}

function why(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  return err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : err.cause?.code ?? err.cause?.message ?? err.message;
}

export class Federation {
  readonly archives: string[];
  private readonly state = new Map<string, ArchiveState>();
  private readonly timeoutMs: number;
  private readonly refreshMs: number;
  private refreshing?: Promise<void>;

  constructor(private readonly o: FederationOptions) {
    this.archives = o.archives.map(trimBase);
    if (new Set(this.archives).size !== this.archives.length) throw new RangeError('an archive is listed twice');
    this.timeoutMs = o.timeoutMs ?? 5000;
    this.refreshMs = o.refreshMs ?? 60_000;
    for (const a of this.archives) this.state.set(a, { archive: a, checkedAt: 0 });
  }

  private token(base: string): string | undefined {
    return this.o.tokens?.get(base) ?? this.o.tokens?.get(`${base}/`);
  }

  /** Every archive's state, after reading what is older than `refreshMs` (all at once, each within the timeout). */
  async states(force = false): Promise<ArchiveState[]> {
    const now = Date.now();
    const stale = this.archives.filter((a) => force || now - this.state.get(a)!.checkedAt >= this.refreshMs);
    if (stale.length) {
      // Concurrent requests share one refresh instead of each asking every archive.
      this.refreshing ??= Promise.all(stale.map((a) => this.check(a))).then(() => undefined).finally(() => (this.refreshing = undefined));
      await this.refreshing;
    }
    return this.archives.map((a) => this.state.get(a)!);
  }

  private async check(base: string): Promise<void> {
    const s = this.state.get(base)!;
    s.checkedAt = Date.now();
    const [cap, hold] = await Promise.allSettled([
      this.getJson(`${base}/api/federation/capacity`),
      this.getJson(`${base}/api/federation/holdings`, s.holdingsEtag),
    ]);
    const capacity = cap.status === 'fulfilled' ? readCapacity(cap.value.body) : undefined;
    if (capacity) {
      s.capacity = capacity;
      s.capacityError = undefined;
    } else if (cap.status === 'fulfilled') {
      s.capacity = undefined;
      s.capacityError = 'unreadable capacity document (needs numbers capacity, monitored, free and a boolean acceptsUrls)';
    } else {
      // Capacity is not kept across a failure: an archive that does not answer takes no URLs.
      s.capacity = undefined;
      s.capacityError = why(cap.reason, this.timeoutMs);
    }
    if (hold.status === 'fulfilled') {
      if (hold.value.status !== 304) {
        try {
          s.holdings = PublishedHoldings.fromJSON(hold.value.body);
          s.holdingsEtag = hold.value.etag;
          s.holdingsError = undefined;
        } catch (e) {
          s.holdings = undefined;
          s.holdingsEtag = undefined;
          s.holdingsError = `unreadable holdings: ${(e as Error).message}`;
        }
      }
    } else {
      // Holdings are dropped too: an archive whose holdings are unknown is asked, so nothing it
      // captured since is missed; when it is down, the answer says so.
      s.holdings = undefined;
      s.holdingsEtag = undefined;
      s.holdingsError = why(hold.reason, this.timeoutMs);
    }
  }

  private async getJson(url: string, etag?: string): Promise<{ status: number; body?: unknown; etag?: string }> {
    const res = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs), headers: { accept: 'application/json', ...(etag ? { 'if-none-match': etag } : {}) } });
    if (res.status === 304) return { status: 304 };
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new Error(`HTTP ${res.status}`);
    }
    const text = await readCapped(res, MAX_DOCUMENT_BYTES, url);
    return { status: res.status, body: JSON.parse(text), etag: res.headers.get('etag') ?? undefined };
  }

  /** The archives to ask about `url`, and those whose holdings say they do not have it. */
  async route(url: string): Promise<{ ask: string[]; skip: Set<string> }> {
    const skip = new Set<string>();
    for (const s of await this.states()) if (s.holdings && !s.holdings.mayHold(url)) skip.add(s.archive);
    return { ask: this.archives.filter((a) => !skip.has(a)), skip };
  }

  async timeMap(url: string): Promise<AggregatedTimeMap> {
    const { skip } = await this.route(url);
    return aggregateTimeMap(url, this.archives, { timeoutMs: this.timeoutMs, skip });
  }

  /** The TimeMap and the memento closest to `time` (undefined when no archive that answered has one). */
  async timeGate(url: string, time: number): Promise<{ tm: AggregatedTimeMap; memento?: Memento }> {
    const tm = await this.timeMap(url);
    return { tm, memento: tm.mementos.length ? closestAcross(tm.mementos, time) : undefined };
  }

  /**
   * Hands new URLs to the archives (already validated: absolute http(s)). Each URL goes to an archive
   * that holds it already, else to the first archive of its capacity-weighted ranking; if that
   * archive fails or refuses, to the next one. Nothing is dropped silently: what no archive took is
   * in `unplaced`.
   */
  async submit(urls: readonly string[]): Promise<SubmitResult> {
    const states = await this.states();
    const passedOver = new Map<string, string>();
    const open: ArchiveCapacity[] = [];
    for (const s of states) {
      if (!this.token(s.archive)) passedOver.set(s.archive, 'no write token for it (federate --tokens)');
      else if (!s.capacity) passedOver.set(s.archive, `capacity unknown: ${s.capacityError ?? 'not read'}`);
      else if (!s.capacity.acceptsUrls) passedOver.set(s.archive, s.capacity.note ?? `no free capacity (${s.capacity.monitored} of ${s.capacity.capacity} monitored)`);
      else open.push({ id: s.archive, capacity: s.capacity.free });
    }
    const holders = (url: string) => states.filter((s) => this.token(s.archive) && s.capacity && s.holdings?.mayHold(url)).map((s) => s.archive);
    const reasons: SubmitResult['reasons'] = {};
    /** Each URL's remaining candidates, best first. */
    const queue = new Map<string, string[]>();
    for (const url of urls) {
      const held = holders(url);
      const ranked = open.length ? rankArchives(url, open).map((a) => a.id) : [];
      reasons[url] = held.length ? 'held' : 'capacity';
      // Held somewhere: stay there (the first holder in the capacity order, or any holder when none is open).
      const heldOrder = held.length ? [...ranked.filter((a) => held.includes(a)), ...held.filter((a) => !ranked.includes(a))] : [];
      queue.set(url, [...new Set([...heldOrder, ...ranked])]);
    }
    const placed: Placement[] = [];
    const unplaced: SubmitResult['unplaced'] = [];
    const dead = new Set<string>();
    while (queue.size) {
      const batches = new Map<string, string[]>();
      for (const [url, candidates] of queue) {
        while (candidates.length && dead.has(candidates[0]!)) candidates.shift();
        if (!candidates.length) {
          queue.delete(url);
          unplaced.push({ url, why: open.length ? 'every archive that could take it failed' : 'no archive that answered has free capacity and a write token' });
          continue;
        }
        const a = candidates[0]!;
        batches.set(a, [...(batches.get(a) ?? []), url]);
      }
      await Promise.all([...batches].map(async ([archive, batch]) => {
        try {
          const added = await this.forward(archive, batch);
          const earlier = placed.find((p) => p.archive === archive);
          if (earlier) (earlier.urls.push(...batch), (earlier.added = (earlier.added ?? 0) + added));
          else placed.push({ archive, urls: batch, added });
          for (const u of batch) queue.delete(u);
          // Count them against the archive's free capacity until its next capacity document.
          const cap = this.state.get(archive)!.capacity;
          if (cap) cap.free = Math.max(0, cap.free - added);
        } catch (e) {
          dead.add(archive);
          passedOver.set(archive, `forwarding failed: ${why(e, this.timeoutMs)}`);
        }
      }));
    }
    return { placed, unplaced, passedOver: [...passedOver].map(([archive, w]) => ({ archive, why: w })), reasons };
  }

  private async forward(archive: string, urls: string[]): Promise<number> {
    const res = await fetch(`${archive}/api/urls`, {
      method: 'POST',
      signal: AbortSignal.timeout(this.timeoutMs),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token(archive)}` },
      body: JSON.stringify({ urls }),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`HTTP ${res.status}: ${text.trim().slice(0, 200)}`);
    const body = JSON.parse(text) as { added?: number };
    return Number(body.added ?? urls.length);
  }
}

/** A submitted URL in the form archives key it, or undefined when it is not an absolute http(s) URL. */
export function submittedUrl(u: unknown): string | undefined {
  return typeof u === 'string' ? normalizeUrl(u.trim()) : undefined;
}
