import fs from 'node:fs';
import path from 'node:path';

/**
 * A WARC file written outside the crawl's WarcWriter (an import's copy, a stream's members): whole gzip
 * members appended under `<rel>.open`, made durable and renamed to `<rel>` when closed, so that a crash is
 * repaired as any crawl file is (recoverOpenFiles cuts an `.open` file back to what the log points at).
 * A failed write is cut off again: every offset the log holds stays a record's start. Nothing is created
 * until the first append.
 */
export class OpenWarcFile {
  private fd?: number;
  private size = 0;

  constructor(private readonly dataDir: string, readonly rel: string) {}

  /** Appends whole gzip members; returns the offset of the first. */
  append(buf: Buffer): number {
    if (this.fd === undefined) {
      fs.mkdirSync(path.dirname(path.join(this.dataDir, this.rel)), { recursive: true });
      this.fd = fs.openSync(path.join(this.dataDir, this.rel + '.open'), 'wx');
    }
    const at = this.size;
    let done = 0;
    try {
      while (done < buf.length) done += fs.writeSync(this.fd, buf, done, buf.length - done, at + done);
    } catch (e) {
      fs.ftruncateSync(this.fd, at);
      throw e;
    }
    this.size += buf.length;
    return at;
  }

  /** Makes the file durable under its final name; false when nothing was written (no file is made). */
  close(): boolean {
    if (this.fd === undefined) return false;
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    this.fd = undefined;
    fs.renameSync(path.join(this.dataDir, this.rel + '.open'), path.join(this.dataDir, this.rel));
    return true;
  }
}
