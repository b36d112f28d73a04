/**
 * A one-line progress display on stderr, drawn only when stderr is a terminal, so logs and pipes
 * stay clean.
 */
export class ProgressLine {
  private readonly enabled: boolean;
  private last = '';

  constructor(stream: NodeJS.WriteStream = process.stderr, force = false) {
    this.enabled = force || Boolean(stream.isTTY);
    this.stream = stream;
  }

  private stream: NodeJS.WriteStream;

  update(text: string): void {
    if (!this.enabled || text === this.last) return;
    this.last = text;
    const width = this.stream.columns ?? 100;
    this.stream.write(`\r${text.slice(0, width - 1).padEnd(Math.min(width - 1, this.last.length))}\x1b[K`);
  }

  /** A bar like [#####.....] 50% for known totals. */
  static bar(done: number, total: number, width = 24): string {
    const f = total > 0 ? Math.min(1, done / total) : 0;
    const n = Math.round(f * width);
    return `[${'#'.repeat(n)}${'.'.repeat(width - n)}] ${(f * 100).toFixed(0).padStart(3)}%`;
  }

  done(): void {
    if (this.enabled && this.last) this.stream.write('\r\x1b[K');
    this.last = '';
  }
}
