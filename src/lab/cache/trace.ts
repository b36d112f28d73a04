/** Reading URL traces (one URL a line, gzip or plain) into fingerprint arrays for the caching lab. */
import fs from 'node:fs';
import readline from 'node:readline';
import zlib from 'node:zlib';
import { UserError } from '../../util/errors.ts';
import { fingerprintTo } from '../../frontier/seen/fingerprint.ts';

/** A trace as fingerprints: hi, lo pairs in request order. */
export interface FingerprintTrace {
  /** 2·length entries: fps[2i] = hi, fps[2i + 1] = lo of request i. */
  fps: Uint32Array;
  length: number;
}

/** Appends fingerprints to a growing array (doubling), so traces of any length stream in. */
export class TraceBuilder {
  private fps = new Uint32Array(1 << 16);
  length = 0;
  push(url: string): void {
    if (2 * this.length + 2 > this.fps.length) {
      const grown = new Uint32Array(this.fps.length * 2);
      grown.set(this.fps);
      this.fps = grown;
    }
    fingerprintTo(url, this.fps, 2 * this.length);
    this.length++;
  }
  done(): FingerprintTrace {
    return { fps: this.fps.subarray(0, 2 * this.length), length: this.length };
  }
}

/** Fingerprints a trace held in memory (tests, generated traces). */
export function traceOf(urls: Iterable<string>): FingerprintTrace {
  const b = new TraceBuilder();
  for (const u of urls) b.push(u);
  return b.done();
}

/** Is the file gzip (by its magic bytes, not its name)? */
function isGzip(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return fs.readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    fs.closeSync(fd);
  }
}

/** Streams the URLs of a trace file; blank lines are skipped, surrounding spaces trimmed. */
export async function* readTraceLines(file: string): AsyncGenerator<string> {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new UserError(`trace file not found: ${file} (give a file of URLs, one a line, plain or gzip)`);
  }
  if (!stat.isFile()) throw new UserError(`${file} is not a file (give a file of URLs, one a line, plain or gzip)`);
  const raw = fs.createReadStream(file);
  const input = isGzip(file) ? raw.pipe(zlib.createGunzip()) : raw;
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  // A read error (a truncated gzip) ends the lines (or readline raises it). Not a race per line:
  // each race would leave a handler on a promise that never settles, millions for a crawl's trace.
  let failure: Error | undefined;
  input.on('error', (e: Error) => {
    failure = e;
    lines.close();
  });
  try {
    for await (const line of lines) {
      if (failure) break;
      const url = line.trim();
      if (url) yield url;
    }
  } catch (e) {
    throw new UserError(`cannot read trace ${file}: ${(failure ?? (e as Error)).message}`);
  } finally {
    lines.close();
    raw.destroy();
  }
  if (failure) throw new UserError(`cannot read trace ${file}: ${failure.message}`);
}

/** Reads and fingerprints a whole trace file. */
export async function readTrace(file: string): Promise<FingerprintTrace> {
  const b = new TraceBuilder();
  for await (const url of readTraceLines(file)) b.push(url);
  return b.done();
}
