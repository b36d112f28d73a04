/**
 * Politeness state shared by every frontier. Two units, on purpose:
 *
 * - The **origin** (scheme, host, port; RFC 9309 and RFC 6454) owns what says something about one
 *   service: requests in flight, back-off after errors, a Retry-After or robots.txt deferral, the
 *   failure count, and its robots.txt Crawl-delay. Trouble at https://h/ never stalls http://h/.
 * - The **hostname** owns the spacing between request starts. http://h/ and https://h/ (or h:8080)
 *   are almost always one machine: spacing each origin on its own would let a crawl that finds both
 *   schemes hit the server at twice the rate the user asked for with --delay.
 *
 * Every wait put in here is finite and bounded: a notBefore that is not a finite time, or later than
 * `maxWaitMs` from now, is refused (release returns false) and never reaches a heap, where one
 * NaN or Infinity would stall every origin.
 */
import { hostnameOf } from './normalize.ts';

export interface HostTimingOptions {
  /** Start-to-start delay between requests to one hostname (`--delay`). */
  delayMs: number;
  /** Requests in flight per origin. */
  perHost: number;
  /** First back-off after an error when it is longer than the delay (default 1 s): `--delay 0` still backs off. */
  backoffBaseMs?: number;
  /** Longest back-off after repeated errors (default 5 min). */
  maxBackoffMs?: number;
  /** Longest wait a server may ask for (Retry-After, a robots.txt deferral) before the URL is given up (default 1 h). */
  maxWaitMs?: number;
}

export const TIMING_DEFAULTS = {
  /** Nutch backs a failing host off 5 s, doubling; with our 1 s delay a base of max(delay, 1 s) is as gentle. */
  backoffBaseMs: 1_000,
  maxBackoffMs: 5 * 60_000,
  maxWaitMs: 60 * 60_000,
} as const;

export interface HostClock {
  inFlight: number;
  /** No request before this: a back-off or a deferral (always finite). */
  notBefore: number;
  /** Why `notBefore` is in the future, for the progress line. */
  waitReason?: string;
  delayMs: number;
  /** Consecutive failures (back-off grows with them). */
  failures: number;
  /** The hostname this origin shares its request spacing with. */
  spacing: Spacing;
}

interface Spacing {
  lastStart: number;
  /**
   * The next start promised to a request `claim` made wait (a context a document in flight needs): URLs of the
   * frontier wait until after it, so that they cannot take that turn again and again. Ignored once a later
   * request started; one that is never taken costs the hostname one delay.
   */
  promised?: number;
  /** Clocks in memory that share it: at none, it leaves memory (`SpacingStore`). */
  users: number;
}

/** A clock that left memory with its origin's queue (host-queues.ts): everything but the shared spacing. */
export type ParkedClock = Omit<HostClock, 'spacing'>;

/** Where the spacing of hostnames none of whose origins is in memory waits (a bounded frontier's spill). */
export interface SpacingStore {
  spacing(hostname: string): number | undefined;
  setSpacing(hostname: string, lastStart: number): void;
}

export interface ReleaseOutcome {
  ok: boolean;
  /** Do not start before this time (Retry-After, a deferred robots.txt). */
  notBefore?: number;
  /** Why the origin waits until `notBefore` (shown while the crawl waits on it). */
  reason?: string;
  /** When the request really started (after robots.txt), to space from it. */
  startedAt?: number;
}

/** An origin that waits on a back-off or a deferral, not just its turn. */
export interface DeferredOrigin {
  origin: string;
  until: number;
  reason: string;
}

export class HostTiming {
  private readonly origins = new Map<string, HostClock>();
  private readonly hostnames = new Map<string, Spacing>();
  private readonly backoffBaseMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxWaitMs: number;

  constructor(readonly opts: HostTimingOptions, private readonly spacings?: SpacingStore) {
    this.backoffBaseMs = opts.backoffBaseMs ?? TIMING_DEFAULTS.backoffBaseMs;
    this.maxBackoffMs = opts.maxBackoffMs ?? TIMING_DEFAULTS.maxBackoffMs;
    this.maxWaitMs = opts.maxWaitMs ?? TIMING_DEFAULTS.maxWaitMs;
  }

  get size(): number {
    return this.origins.size;
  }

  clock(origin: string): HostClock {
    return this.origins.get(origin) ?? this.restore(origin, { inFlight: 0, notBefore: 0, waitReason: undefined, delayMs: this.opts.delayMs, failures: 0 });
  }

  /** Takes an origin's clock back into memory (a new origin's: the defaults). */
  restore(origin: string, parked: ParkedClock): HostClock {
    const hostname = hostnameOf(origin); // the unit of request spacing: https://h:8443 and http://h are one machine
    let spacing = this.hostnames.get(hostname);
    if (!spacing) this.hostnames.set(hostname, (spacing = { lastStart: this.spacings?.spacing(hostname) ?? -Infinity, users: 0 }));
    spacing.users++;
    const s: HostClock = { inFlight: parked.inFlight, notBefore: parked.notBefore, waitReason: parked.waitReason, delayMs: parked.delayMs, failures: parked.failures, spacing };
    this.origins.set(origin, s);
    return s;
  }

  /**
   * Takes an origin's clock out of memory and returns it; the hostname's spacing goes to the store when no origin
   * in memory shares it. A later `clock` of a dropped origin that `isDefault` said was plain is the same clock.
   */
  evict(origin: string): ParkedClock | undefined {
    const s = this.origins.get(origin);
    if (!s) return undefined;
    this.origins.delete(origin);
    if (--s.spacing.users === 0) {
      const hostname = hostnameOf(origin);
      this.hostnames.delete(hostname);
      if (s.spacing.lastStart > -Infinity) this.spacings?.setSpacing(hostname, s.spacing.lastStart);
    }
    const { spacing: _, ...parked } = s;
    return parked;
  }

  /** Whether the origin's clock says nothing a new one would not from `now` on: it may be dropped. */
  isDefault(origin: string, now: number): boolean {
    const s = this.origins.get(origin);
    return !s || (s.inFlight === 0 && s.failures === 0 && s.delayMs === this.opts.delayMs && s.notBefore <= now);
  }

  /** Whether the origin's clock is in memory. */
  has(origin: string): boolean {
    return this.origins.has(origin);
  }

  /** When the origin may start its next request (once it has room). */
  readyAt(origin: string): number {
    const s = this.clock(origin);
    const { lastStart, promised } = s.spacing;
    const after = promised !== undefined && promised > lastStart ? promised : lastStart;
    return Math.max(s.notBefore, after + s.delayMs);
  }

  /** `readyAt` of an origin whose clock is out of memory (`evict`), as it would be back in memory. */
  readyAtOf(origin: string, c: ParkedClock): number {
    const hostname = hostnameOf(origin);
    const lastStart = this.hostnames.get(hostname)?.lastStart ?? this.spacings?.spacing(hostname) ?? -Infinity;
    return Math.max(c.notBefore, lastStart + c.delayMs);
  }

  /** May a request to `origin` start at `now`? */
  ready(origin: string, now: number): boolean {
    return this.hasRoom(origin) && this.readyAt(origin) <= now;
  }

  /** Full origins wait for a release; others for their time. */
  hasRoom(origin: string): boolean {
    return this.clock(origin).inFlight < this.opts.perHost;
  }

  start(origin: string, now: number): void {
    const s = this.clock(origin);
    s.inFlight++;
    this.noteRequest(origin, now);
  }

  /**
   * Takes the hostname's next request start at `now` for a request that needs no slot of the origin (a
   * JSON-LD context or a proof a document in flight waits for: a slot it would wait for could be the one
   * that document holds). Returns 0 when taken, else the time to ask again: the spacing (at least
   * `minDelayMs`) and the origin's back-off or deferral are kept as for a URL of the frontier, and a turn
   * of the spacing given is promised: the frontier's URLs of the hostname wait until after it.
   */
  claim(origin: string, now: number, minDelayMs = 0): number {
    const s = this.clock(origin);
    const spaced = s.spacing.lastStart + Math.max(s.delayMs, minDelayMs);
    const at = Math.max(s.notBefore, spaced);
    if (at > now) {
      // Only a turn of the hostname's spacing is promised: the origin's own back-off must not hold its hostname's other origins.
      if (at === spaced && !(s.spacing.promised! > s.spacing.lastStart)) s.spacing.promised = at;
      return at;
    }
    this.noteRequest(origin, now);
    return 0;
  }

  /** When a request to `origin` really went out (written to its connection): the next one is spaced from then. */
  noteRequest(origin: string, time: number): void {
    const sp = this.clock(origin).spacing;
    if (Number.isFinite(time)) sp.lastStart = Math.max(sp.lastStart, time);
  }

  /** A robots.txt Crawl-delay; never below the configured delay. */
  setDelay(origin: string, delayMs: number): void {
    if (Number.isFinite(delayMs)) this.clock(origin).delayMs = Math.max(this.opts.delayMs, delayMs);
  }

  /** Whether a server's wait until `notBefore` is one this crawl takes (finite, within maxWaitMs of now). */
  acceptsWait(notBefore: number, now: number): boolean {
    return Number.isFinite(notBefore) && notBefore - now <= this.maxWaitMs;
  }

  /**
   * Ends a request. Returns false when `outcome.notBefore` was refused (not finite, or past maxWaitMs):
   * the origin then only backs off as for any error, and the caller gives the URL up for this crawl.
   */
  release(origin: string, now: number, outcome: ReleaseOutcome): boolean {
    const s = this.clock(origin);
    if (outcome.startedAt !== undefined) this.noteRequest(origin, outcome.startedAt);
    s.inFlight = Math.max(0, s.inFlight - 1);
    s.failures = outcome.ok ? 0 : s.failures + 1;
    if (s.failures > 0) this.defer(s, now + this.backoffMs(s, s.failures), `back-off after ${s.failures} failure${s.failures > 1 ? 's' : ''}`);
    if (outcome.notBefore === undefined) return true;
    if (!this.acceptsWait(outcome.notBefore, now)) return false;
    this.defer(s, outcome.notBefore, outcome.reason ?? 'asked to wait');
    return true;
  }

  /** The back-off after `failures` errors in a row: max(delay, base), doubling, capped. */
  private backoffMs(s: HostClock, failures: number): number {
    return Math.min(this.maxBackoffMs, Math.max(s.delayMs, this.backoffBaseMs) * 2 ** (failures - 1));
  }

  /** How long the origin would back off if its request in flight failed too: what a retry of it would wait. */
  backoffAfterFailure(origin: string): number {
    const s = this.clock(origin);
    return this.backoffMs(s, s.failures + 1);
  }

  private defer(s: HostClock, until: number, reason: string): void {
    if (until <= s.notBefore) return;
    s.notBefore = until;
    s.waitReason = reason;
  }

  failures(origin: string): number {
    return this.origins.get(origin)?.failures ?? 0;
  }

  /** The origins among `origins` that wait on a back-off or deferral at `now`, soonest first. */
  deferred(now: number, origins: Iterable<string>): DeferredOrigin[] {
    const out: DeferredOrigin[] = [];
    for (const origin of origins) {
      const s = this.origins.get(origin);
      if (s && s.notBefore > now) out.push({ origin, until: s.notBefore, reason: s.waitReason ?? 'waiting' });
    }
    return out.sort((a, b) => a.until - b.until);
  }
}

/** "waiting on 2 deferred origins: https://a (robots.txt 503) until 17:40:00, …" for the progress line (local time). */
export function describeDeferred(deferred: readonly DeferredOrigin[], shown = 3): string {
  const n = deferred.length;
  const each = deferred.slice(0, shown).map((d) => `${d.origin} (${d.reason}) until ${new Date(d.until).toTimeString().slice(0, 8)}`);
  const more = n > shown ? `, and ${n - shown} more` : '';
  return `waiting on ${n} deferred origin${n === 1 ? '' : 's'}: ${each.join(', ')}${more}`;
}
