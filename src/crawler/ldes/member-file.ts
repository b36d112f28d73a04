import path from 'node:path';
import zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { serializeRecord } from '../../archive/warc-record.ts';
import { OpenWarcFile } from '../../archive/open-file.ts';
import { timestampOf } from '../../archive/timestamp.ts';

/** Where a crawl's stream members go: `warc/ldes/<host of the stream>/`, apart from the fetched pages. */
export const LDES_WARC_DIR = path.join('warc', 'ldes');

/** Where a member's page is archived: the member's conversion record refers to it. */
export interface PageRecord {
  url: string;
  /** Its response record's WARC-Record-ID (absent when it could not be read back). */
  recordId?: string;
  /** When it was fetched. */
  time: number;
}

/** The header that makes a record a stream member's (its member IRI): what an import or rebuild of the file reads back. */
export const LDES_MEMBER_HEADER = 'WARC-Datamonitor-LDES-Member';

/** Where a member's version goes: its graph's record, and a deletion's. */
export interface MemberSink {
  /** The file the records are in, relative to the data directory. */
  readonly rel: string;
  /** The record of `document`'s graph at `time`; where it lies. */
  write(document: string, time: number, nquads: string, member: string, page: PageRecord): { offset: number; length: number };
  /** A record that `document` was deleted at `time` (no log row points to it: a rebuild reads it back). */
  writeDeletion(document: string, time: number, member: string, page: PageRecord): void;
}

/**
 * The WARC file a crawl writes its stream members to: for each version a member gives, one `conversion`
 * record of its graph's canonical N-Quads, `WARC-Target-URI` the document, `WARC-Date` the member's time,
 * `WARC-Refers-To` the response record of the page it was read from (as an import's conversion refers to
 * the record it was extracted from, src/crawler/import-warc.ts). Nothing is made up: no response record
 * stands for a request never made. Written under `.open` and renamed when closed, each record a gzip member
 * of its own, so that a crash is repaired as any crawl file is (recoverOpenFiles cuts it back to the log).
 */
export class MemberFile implements MemberSink {
  readonly rel: string;
  private readonly file: OpenWarcFile;

  constructor(dataDir: string, host: string) {
    this.rel = path.join(LDES_WARC_DIR, host.replace(/[^A-Za-z0-9.-]/g, '_'), `datamonitor-ldes-${timestampOf(Date.now())}-${process.pid}-${randomBytes(3).toString('hex')}.warc.gz`);
    this.file = new OpenWarcFile(dataDir, this.rel);
  }

  /** Appends the conversion record of `document`'s version at `time`; returns where it lies. */
  write(document: string, time: number, nquads: string, member: string, page: PageRecord): { offset: number; length: number } {
    const gz = zlib.gzipSync(serializeRecord({ type: 'conversion', date: new Date(time), targetUri: document, contentType: 'application/n-quads', headers: provenance(member, page), block: Buffer.from(nquads, 'utf8') }).bytes);
    return { offset: this.append(gz), length: gz.length };
  }

  /** A deletion: a `metadata` record of the document at the member's time, saying which member deleted it. */
  writeDeletion(document: string, time: number, member: string, page: PageRecord): void {
    const block = Buffer.from(`ldes-member: ${member}\r\nldes-deleted: ${document}\r\n`, 'utf8');
    this.append(zlib.gzipSync(serializeRecord({ type: 'metadata', date: new Date(time), targetUri: document, contentType: 'application/warc-fields', headers: provenance(member, page), block }).bytes));
  }

  private append(buf: Buffer): number {
    return this.file.append(buf);
  }

  /** Makes the file durable and gives it its final name; a file nothing was written to is not made. */
  close(): void {
    this.file.close();
  }
}

/** A member record's provenance: the page's response record it was read from, and the member's IRI. */
function provenance(member: string, page: PageRecord): [string, string][] {
  const headers: [string, string][] = [];
  if (page.recordId) headers.push(['WARC-Refers-To', page.recordId]);
  headers.push(['WARC-Refers-To-Target-URI', page.url], ['WARC-Refers-To-Date', new Date(page.time).toISOString()], [LDES_MEMBER_HEADER, member]);
  return headers;
}
