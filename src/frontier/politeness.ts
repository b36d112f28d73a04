/**
 * Per-host politeness state, shared by every frontier: a request to a host starts no earlier than
 * the previous start plus the host's delay, at most `perHost` are in flight, and errors back the
 * host off exponentially.
 */
export interface HostTimingOptions {
  delayMs: number;
  perHost: number;
  /** Longest back-off after repeated errors. */
  maxBackoffMs?: number;
}

export interface HostClock {
  inFlight: number;
  readyAt: number;
  lastStart: number;
  delayMs: number;
  /** Consecutive failures (back-off grows with them). */
  failures: number;
}

export interface ReleaseOutcome {
  ok: boolean;
  /** Do not start before this time (Retry-After, a deferred robots.txt). */
  notBefore?: number;
  /** When the request really started (after robots.txt), to space from it. */
  startedAt?: number;
}

export class HostTiming {
  private readonly hosts = new Map<string, HostClock>();

  constructor(readonly opts: HostTimingOptions) {}

  get size(): number {
    return this.hosts.size;
  }

  clock(host: string): HostClock {
    let s = this.hosts.get(host);
    if (!s) {
      s = { inFlight: 0, readyAt: 0, lastStart: -Infinity, delayMs: this.opts.delayMs, failures: 0 };
      this.hosts.set(host, s);
    }
    return s;
  }

  /** May a request to `host` start at `now`? */
  ready(host: string, now: number): boolean {
    const s = this.clock(host);
    return s.inFlight < this.opts.perHost && s.readyAt <= now;
  }

  /** Full hosts wait for a release; others for their time. */
  hasRoom(host: string): boolean {
    return this.clock(host).inFlight < this.opts.perHost;
  }

  start(host: string, now: number): void {
    const s = this.clock(host);
    s.inFlight++;
    s.lastStart = now;
    s.readyAt = now + s.delayMs;
  }

  /** A robots.txt Crawl-delay; never below the configured delay. */
  setDelay(host: string, delayMs: number): void {
    this.clock(host).delayMs = Math.max(this.opts.delayMs, delayMs);
  }

  release(host: string, now: number, outcome: ReleaseOutcome): void {
    const s = this.clock(host);
    if (outcome.startedAt !== undefined) s.lastStart = Math.max(s.lastStart, outcome.startedAt);
    s.inFlight = Math.max(0, s.inFlight - 1);
    s.failures = outcome.ok ? 0 : s.failures + 1;
    const backoff = s.failures === 0 ? 0 : Math.min(this.opts.maxBackoffMs ?? 300_000, s.delayMs * 2 ** s.failures);
    let readyAt = Math.max(s.lastStart + s.delayMs, now + backoff);
    if (outcome.notBefore !== undefined) readyAt = Math.max(readyAt, outcome.notBefore);
    s.readyAt = Math.max(s.readyAt, readyAt);
  }

  failures(host: string): number {
    return this.hosts.get(host)?.failures ?? 0;
  }
}
