import type { CatchUpProgress } from '../versions/catch-up.ts';
import { formatDuration } from '../util/units.ts';
/**
 * Progress of long work on stderr. On a terminal, one line redrawn in place; elsewhere (a script, a
 * service's journal) a plain timestamped line now and then, so that a 20-second index catch-up in a
 * cron job is not silent; or nothing. `--progress bar|plain|none` chooses; the default follows stderr.
 */
export type ProgressMode = 'bar' | 'plain' | 'none';

export const PROGRESS_MODES: readonly ProgressMode[] = ['bar', 'plain', 'none'];

let defaultMode: ProgressMode | undefined;

/** Set by the CLI's `--progress` flag for every progress display of the process. */
export function setProgressMode(mode: ProgressMode | undefined): void {
  defaultMode = mode;
}

export interface ProgressOptions {
  mode?: ProgressMode;
  /** Plain mode: the first line after this long (short work prints nothing), then one per interval. */
  plainAfterMs?: number;
  plainEveryMs?: number;
  now?: () => number;
}

export class ProgressLine {
  private readonly mode: ProgressMode;
  private last = '';
  private readonly now: () => number;
  private readonly started: number;
  private nextPlainAt: number;
  private readonly plainEveryMs: number;

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    force: boolean | ProgressOptions = false,
  ) {
    const o: ProgressOptions = typeof force === 'boolean' ? (force ? { mode: 'bar' } : {}) : force;
    this.mode = o.mode ?? defaultMode ?? (stream.isTTY ? 'bar' : 'plain');
    this.now = o.now ?? Date.now;
    this.started = this.now();
    this.nextPlainAt = this.started + (o.plainAfterMs ?? 2_000);
    this.plainEveryMs = o.plainEveryMs ?? 10_000;
  }

  update(text: string): void {
    if (this.mode === 'none' || text === this.last) return;
    if (this.mode === 'plain') {
      this.last = text;
      const t = this.now();
      if (t < this.nextPlainAt) return;
      this.nextPlainAt = t + this.plainEveryMs;
      this.stream.write(`${new Date(t).toISOString()} ${text}\n`);
      return;
    }
    const width = this.stream.columns ?? 100;
    this.stream.write(`\r${text.slice(0, width - 1).padEnd(Math.min(width - 1, this.last.length))}\x1b[K`);
    this.last = text;
  }

  /** A bar like [#####.....] 50% for known totals. */
  static bar(done: number, total: number, width = 24): string {
    const f = total > 0 ? Math.min(1, done / total) : 0;
    const n = Math.round(f * width);
    return `[${'#'.repeat(n)}${'.'.repeat(width - n)}] ${(f * 100).toFixed(0).padStart(3)}%`;
  }

  done(): void {
    if (this.mode === 'bar' && this.last) this.stream.write('\r\x1b[K');
    this.last = '';
  }
}

/** The line of a version index catching up (`query`'s wait, `crawl`'s last live catch-up); `secondsLeft` when known. */
export function catchUpProgressText(p: CatchUpProgress, secondsLeft?: number): string {
  if (p.phase === 'indexes') return `building the archive's indexes (${p.done.toLocaleString('en')} log rows indexed)`;
  return `indexing versions ${ProgressLine.bar(p.done, p.total)}  log id ${p.lastLogId}${secondsLeft !== undefined ? `, about ${formatDuration(Math.ceil(secondsLeft) * 1000)} left` : ''}`;
}
