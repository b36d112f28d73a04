/**
 * One request's deadline: a single timer, re-armed as the exchange moves from phase to phase, that
 * settles the fetch itself when it fires. undici's own timeouts and abort signal cannot be the
 * authority: an abort is only acted on once a request has a socket, so a connection stuck in a
 * proxy tunnel's TLS handshake outlived every timeout we had set (the silent-host crawl of #12).
 */
import type { TimeoutPhase } from './types.ts';

export interface PhaseLimits {
  connectMs: number;
  tlsMs: number;
  headersMs: number;
  bodyIdleMs: number;
  totalMs: number;
}

/** The fetch failed because a phase ran out of time; `phase` says which. */
export class DeadlineExceeded extends Error {
  readonly code = 'timeout';
  constructor(readonly phase: TimeoutPhase, message: string) {
    super(message);
    this.name = 'DeadlineExceeded';
  }
}

/** What the deadline needs to tell a TCP connect from a TLS handshake for the current hop. */
export interface TransportProbe {
  /** When a transport (TCP, or a proxy's CONNECT tunnel) to this hop's origin came up since `since`, if it did. */
  transportUpSince(since: number): number | undefined;
  /** The hop speaks TLS (https), so a transport being up still leaves a handshake to do. */
  tls: boolean;
}

type Phase = Exclude<TimeoutPhase, 'total'>;

export class Deadline {
  /** Rejects with DeadlineExceeded when the deadline passes (or with stop()'s error); never resolves. */
  readonly expired: Promise<never>;
  private reject!: (e: Error) => void;
  private timer: NodeJS.Timeout | undefined;
  private readonly totalAt: number;
  private phase: Phase = 'connect';
  private phaseStart = 0;
  private lastActivity = 0;
  private probe: TransportProbe | undefined;
  private cancelCurrent: (() => void) | undefined;
  private done = false;
  /** The timer was set for the total, not a phase: a timer may fire a millisecond before Date.now() says it is due. */
  private armedForTotal = false;

  constructor(private readonly limits: PhaseLimits, private readonly now: () => number = Date.now) {
    this.expired = new Promise<never>((_, reject) => (this.reject = reject));
    this.expired.catch(() => undefined); // a race may have settled already; never an unhandled rejection
    this.totalAt = this.now() + limits.totalMs;
    // Armed from the start: resolving a name (ours, before a proxied request) is part of connecting.
    this.enter('connect');
  }

  /** A new hop starts connecting (or waits for a pooled connection). */
  connecting(probe: TransportProbe, cancel: () => void): void {
    this.probe = probe;
    this.cancelCurrent = cancel;
    this.enter('connect');
  }

  /** The request has a socket and is written: now waiting for the status line and headers. */
  sent(): void {
    this.enter('headers');
  }

  /** Headers are in: from now on only the body's idle time (and the total) count. */
  receiving(): void {
    this.enter('body');
  }

  /** The response is all in: only the total bounds what is left (decoding it). */
  received(): void {
    if (!this.done) this.arm(Number.POSITIVE_INFINITY);
  }

  /** A body chunk arrived. Cheap on purpose (called per chunk): the timer is only re-armed when it fires. */
  activity(): void {
    this.lastActivity = this.now();
  }

  /** The deadline fired or the fetch was stopped: nothing more may be sent for this fetch. */
  get over(): boolean {
    return this.done;
  }

  /** Ends the fetch now with `err` (the caller aborted), cancelling what is in flight. */
  stop(err: Error): void {
    if (this.done) return;
    this.clear();
    this.reject(err);
    this.cancelCurrent?.();
  }

  clear(): void {
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private enter(phase: Phase): void {
    if (this.done) return;
    this.phase = phase;
    this.phaseStart = this.lastActivity = this.now();
    this.arm(this.phaseStart + this.limitOf(phase));
  }

  private limitOf(phase: Phase): number {
    switch (phase) {
      case 'connect': return this.limits.connectMs;
      case 'tls': return this.limits.tlsMs;
      case 'headers': return this.limits.headersMs;
      case 'body': return this.limits.bodyIdleMs;
    }
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    const when = Math.min(at, this.totalAt);
    this.armedForTotal = at >= this.totalAt;
    this.timer = setTimeout(() => this.fire(), Math.max(0, when - this.now()));
  }

  /**
   * The timer ran out, but a process that was not scheduled for a while (a busy machine, a long
   * synchronous task) runs its due timers before it reads the sockets: the headers or the handshake
   * that came meanwhile may be sitting unread. So the verdict waits one turn of the event loop
   * (setImmediate runs after the I/O poll), and a phase that moved on meanwhile has re-armed the timer.
   */
  private fire(): void {
    this.timer = undefined;
    if (this.done) return;
    setImmediate(() => {
      if (!this.done && this.timer === undefined) this.decide();
    });
  }

  private decide(): void {
    const now = this.now();
    if (this.armedForTotal || now >= this.totalAt) return this.expire('total', `no complete response within ${this.limits.totalMs} ms (total timeout)`);
    if (this.phase === 'connect' && this.probe?.tls) {
      // The connect budget is spent; if the transport came up meanwhile, the handshake gets its own budget from then.
      const up = this.probe.transportUpSince(this.phaseStart);
      if (up !== undefined) {
        this.phase = 'tls';
        if (now < up + this.limits.tlsMs) return this.arm(up + this.limits.tlsMs);
      }
    }
    if (this.phase === 'body' && now < this.lastActivity + this.limits.bodyIdleMs) return this.arm(this.lastActivity + this.limits.bodyIdleMs);
    this.expire(this.phase, this.describe(this.phase));
  }

  private describe(phase: Phase): string {
    switch (phase) {
      case 'connect': return `no connection within ${this.limits.connectMs} ms (connect timeout)`;
      case 'tls': return `no TLS handshake within ${this.limits.tlsMs} ms (TLS timeout)`;
      case 'headers': return `no response headers within ${this.limits.headersMs} ms (headers timeout)`;
      case 'body': return `the body stalled for ${this.limits.bodyIdleMs} ms (idle timeout)`;
    }
  }

  private expire(phase: TimeoutPhase, message: string): void {
    this.stop(new DeadlineExceeded(phase, message));
  }
}
