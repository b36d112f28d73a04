import fs from 'node:fs';
import path from 'node:path';
import type { CrawlLogEntry, MetadataStore } from '../store/types.ts';
import { parseHttpResponse, readRecord } from './warc-reader.ts';
import { sha1Digest } from './warc-record.ts';
import { listWarcFiles } from './warc-files.ts';
import { graphHashOf } from './canonical.ts';

/** What can be wrong with an archived capture. */
export type ProblemKind = 'missing-file' | 'unreadable' | 'record-type' | 'target-uri' | 'block-digest' | 'payload-digest' | 'graph-hash';

export interface VerifyProblem {
  kind: ProblemKind;
  url: string;
  time: number;
  logId?: number;
  file: string;
  offset: number;
  detail: string;
}

export interface VerifyReport {
  /** Crawl-log entries read, and WARC records checked (a capture has one or two: the response or revisit, and its RDF). */
  entries: number;
  records: number;
  problems: VerifyProblem[];
  /** WARC files no log entry points to (left by a crash before the log was written, or copied in), and files still open. */
  unreferencedFiles: string[];
  openFiles: string[];
  seconds: number;
}

const LOG_PAGE = 2000;
/** Problems listed in full; beyond that only counted (`problemCount`). */
const MAX_LISTED = 1000;

/**
 * Fixity check of an archive: every capture the crawl log points to is read back from its WARC file
 * and checked against what was recorded when it was written: the record's type and target URI, its
 * block digest, the payload digest (WARC header, crawl log), and for a changed graph the SHA-256 of the
 * N-Quads in its conversion record (the log's graph hash, exact or label-blind as it was made). Reads only; a record that cannot
 * be read is reported, never fatal.
 */
export async function verifyArchive(
  dataDir: string,
  store: MetadataStore,
  o: { onProgress?: (entries: number) => void } = {},
): Promise<VerifyReport & { problemCount: number }> {
  const t0 = Date.now();
  const problems: VerifyProblem[] = [];
  let problemCount = 0;
  const referenced = new Set<string>();
  let entries = 0;
  let records = 0;
  const report = (p: VerifyProblem) => {
    problemCount++;
    if (problems.length < MAX_LISTED) problems.push(p);
  };
  for (let since = 0; ; ) {
    const page = await store.log({ sinceId: since, limit: LOG_PAGE });
    for (const e of page) {
      entries++;
      if (e.warcFile === undefined || e.warcOffset === undefined || e.warcLength === undefined) continue;
      referenced.add(path.normalize(e.warcFile));
      records += checkCapture(dataDir, e, report);
      if (e.rdfOffset !== undefined && e.rdfLength !== undefined) {
        records++;
        checkGraph(dataDir, e, report);
      }
    }
    o.onProgress?.(entries);
    if (page.length < LOG_PAGE) break;
    since = page.at(-1)!.id!;
  }
  const { closed, open } = listWarcFiles(dataDir);
  return {
    entries, records, problems, problemCount,
    unreferencedFiles: closed.filter((f) => !referenced.has(f)),
    openFiles: open,
    seconds: (Date.now() - t0) / 1000,
  };
}

type Report = (p: VerifyProblem) => void;

function read(dataDir: string, e: CrawlLogEntry, offset: number, length: number, report: Report): ReturnType<typeof readRecord> | undefined {
  const where = { url: e.url, time: e.time, logId: e.id, file: e.warcFile!, offset };
  const abs = path.join(dataDir, e.warcFile!);
  if (!fs.existsSync(abs) && !fs.existsSync(abs + '.open')) {
    report({ ...where, kind: 'missing-file', detail: `${e.warcFile} is not in the archive` });
    return undefined;
  }
  try {
    return readRecord(dataDir, e.warcFile!, offset, length);
  } catch (err) {
    report({ ...where, kind: 'unreadable', detail: `${length} bytes at ${offset} are not a WARC record: ${(err as Error).message}` });
    return undefined;
  }
}

/** The response or revisit record of a capture: 1 record checked (0 when it cannot be read). */
function checkCapture(dataDir: string, e: CrawlLogEntry, report: Report): number {
  const rec = read(dataDir, e, e.warcOffset!, e.warcLength!, report);
  if (!rec) return 0;
  const where = { url: e.url, time: e.time, logId: e.id, file: e.warcFile!, offset: e.warcOffset! };
  const type = rec.headers.get('warc-type');
  if (type !== 'response' && type !== 'revisit') report({ ...where, kind: 'record-type', detail: `a ${type ?? 'typeless'} record where the log points to a response` });
  const target = rec.headers.get('warc-target-uri');
  if (target !== e.url && target !== e.finalUrl) report({ ...where, kind: 'target-uri', detail: `the record is of ${target}, the log of ${e.finalUrl ?? e.url}` });
  checkBlock(rec, where, report);
  const recorded = rec.headers.get('warc-payload-digest');
  if (type === 'response') {
    const actual = sha1Digest(parseHttpResponse(rec.block).body);
    if (recorded !== undefined && recorded !== actual) report({ ...where, kind: 'payload-digest', detail: `payload is ${actual}, the record says ${recorded}` });
  }
  if (e.checksum !== undefined && recorded !== undefined && recorded !== e.checksum) {
    report({ ...where, kind: 'payload-digest', detail: `the record says ${recorded}, the crawl log ${e.checksum}` });
  }
  return 1;
}

/**
 * The conversion record of a changed graph: its N-Quads must hash to the logged graph hash, made the
 * way the log's hash was made (exact, or label-blind for a graph too costly to canonicalise).
 */
function checkGraph(dataDir: string, e: CrawlLogEntry, report: Report): void {
  const rec = read(dataDir, e, e.rdfOffset!, e.rdfLength!, report);
  if (!rec) return;
  const where = { url: e.url, time: e.time, logId: e.id, file: e.warcFile!, offset: e.rdfOffset! };
  checkBlock(rec, where, report);
  if (e.graphHash === undefined) return;
  const actual = graphHashOf(rec.block.toString('utf8'), e.graphHash);
  if (actual !== e.graphHash) report({ ...where, kind: 'graph-hash', detail: `the N-Quads hash to ${actual}, the crawl log says ${e.graphHash}` });
}

function checkBlock(rec: ReturnType<typeof readRecord>, where: Omit<VerifyProblem, 'kind' | 'detail'>, report: Report): void {
  const recorded = rec.headers.get('warc-block-digest');
  if (recorded === undefined) return;
  const actual = sha1Digest(rec.block);
  if (actual !== recorded) report({ ...where, kind: 'block-digest', detail: `block is ${actual}, the record says ${recorded}` });
}
