import { PROVENANCE_GRAPH, versionQuads } from '../archive/export.ts';
import { trustFactOf, trustQuads } from '../trust/record.ts';
import { alternateOf, alternateQuads } from '../archive/alternates.ts';
import { RecordReader } from '../archive/warc-reader.ts';
import { skolemise, type NtQuad } from '../rdf/terms.ts';
import type { CrawlLogEntry } from '../store/types.ts';
import { TsThread } from '../util/ts-thread.ts';
import { siblingModule } from '../util/sibling.ts';

/**
 * Where the catch-up gets each log row's version: its WARC conversion record read, parsed and put in the
 * store's terms (skolemise). In process, or on a thread of its own while the store writes the batch before
 * (VersionThread).
 */

/** A log row's version in the store's terms; undefined for a row that holds none. */
export type ReadVersion = { terms: NtQuad[] } | { error: Error } | undefined;

export interface VersionSource {
  /** The versions of a batch's rows, by index. The reading may start now and go on while the caller writes. */
  read(rows: CrawlLogEntry[]): Promise<(i: number) => ReadVersion>;
  close(): Promise<void>;
}

/** The fields of a log row that locate and qualify its version (what goes to the reading thread). */
export type VersionRow = Pick<CrawlLogEntry, 'url' | 'finalUrl' | 'warcFile' | 'rdfOffset' | 'rdfLength' | 'diagnostics'>;

export function readVersion(reader: RecordReader, e: VersionRow): ReadVersion {
  if (e.rdfOffset === undefined || !e.warcFile) return undefined;
  const graph = e.finalUrl ?? e.url;
  try {
    const quads = versionQuads(reader, e as CrawlLogEntry, 'b');
    // A version vetted by `crawl --trust` carries its verdict as facts in dm:provenance (src/trust/record.ts).
    const trust = trustFactOf(e.diagnostics);
    if (trust) quads.push(...trustQuads(graph, trust, PROVENANCE_GRAPH));
    // An alternate `crawl --variants` captured says so, which keeps it out of queries' default dataset.
    const doc = alternateOf(e.diagnostics);
    if (doc) quads.push(...alternateQuads(graph, doc));
    return { terms: skolemise(graph, quads) };
  } catch (err) {
    return { error: err as Error };
  }
}

/**
 * In process. `ahead`: every version of the batch read at once (a store that commits behind the caller, so
 * the next batch is read while the last one is written); else one at a time as the transaction asks, one
 * version in memory (a server under a 48 MB heap).
 */
export class InlineVersions implements VersionSource {
  private readonly reader: RecordReader;

  constructor(dataDir: string, private readonly ahead: boolean) {
    this.reader = new RecordReader(dataDir);
  }

  async read(rows: CrawlLogEntry[]): Promise<(i: number) => ReadVersion> {
    if (!this.ahead) return (i) => readVersion(this.reader, rows[i]!);
    const read = rows.map((e) => readVersion(this.reader, e));
    return (i) => read[i];
  }

  async close(): Promise<void> {
    this.reader.close();
  }
}

/** What the reading thread answers for one row: its terms, four strings a quad, joined by newlines (no N-Triples term holds one); an error's message; null for no version. */
export type WireVersion = string | { error: string } | null;
export type ToVersionThread = { type: 'read'; id: number; rows: VersionRow[] };
export type FromVersionThread = { type: 'read'; id: number; versions: WireVersion[] };

/**
 * On a thread of its own: a bulk catch-up reads the next batch there while this thread writes the batch
 * before, which on two cores takes the reading (a fifth of a catch-up's CPU: bench/CATCH-UP.md) off the
 * writer's path. A batch crosses as one string a version, split here, which costs less than posting each
 * term.
 */
export class VersionThread implements VersionSource {
  private readonly thread: TsThread;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (v: WireVersion[]) => void; reject: (e: Error) => void }>();
  private failed: Error | undefined;
  private closing = false;

  constructor(dataDir: string) {
    this.thread = new TsThread(siblingModule(import.meta.url, './version-reader-thread.ts'), { dataDir });
    this.thread.worker.on('message', (m: FromVersionThread | { type: string }) => {
      if (m.type !== 'read') return;
      const { id, versions } = m as FromVersionThread;
      this.waiting.get(id)?.resolve(versions);
      this.waiting.delete(id);
    });
    const fail = (e: Error) => {
      this.failed ??= new Error(`the catch-up's reading thread failed: ${e.message}`);
      for (const w of this.waiting.values()) w.reject(this.failed);
      this.waiting.clear();
    };
    this.thread.worker.on('error', fail);
    // Also with nothing asked yet: a read posted to an ended thread would wait for ever.
    this.thread.worker.on('exit', (code) => {
      if (!this.closing) fail(new Error(`it exited with code ${code}`));
    });
  }

  read(rows: CrawlLogEntry[]): Promise<(i: number) => ReadVersion> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.next++;
    const wire: VersionRow[] = rows.map((e) => ({ url: e.url, finalUrl: e.finalUrl, warcFile: e.warcFile, rdfOffset: e.rdfOffset, rdfLength: e.rdfLength, diagnostics: e.diagnostics }));
    const answered = new Promise<WireVersion[]>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.thread.worker.postMessage({ type: 'read', id, rows: wire } satisfies ToVersionThread);
    return answered.then((versions) => (i) => fromWire(versions[i]!));
  }

  close(): Promise<void> {
    this.closing = true;
    return this.thread.close();
  }
}

export function toWire(v: ReadVersion): WireVersion {
  if (v === undefined) return null;
  if ('error' in v) return { error: v.error.message };
  return v.terms.map((q) => q.join('\n')).join('\n');
}

function fromWire(v: WireVersion): ReadVersion {
  if (v === null) return undefined;
  if (typeof v !== 'string') return { error: new Error(v.error) };
  if (v === '') return { terms: [] };
  const parts = v.split('\n');
  const terms: NtQuad[] = new Array(parts.length / 4);
  for (let i = 0, k = 0; k < parts.length; i++, k += 4) terms[i] = [parts[k]!, parts[k + 1]!, parts[k + 2]!, parts[k + 3]!];
  return { terms };
}
