import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createHash } from 'node:crypto';
import type { CrawlLog, CrawlLogEntry } from '../store/types.ts';
import { readRecord } from './warc-reader.ts';
import { digestKey, digestMatches } from './digest.ts';
import { httpPayload } from './http-payload.ts';
import { normalizeUrl } from '../frontier/normalize.ts';
import { eachImportIndex, isImportFile } from './import-index.ts';
import { listWarcFiles, warcPath } from './warc-files.ts';
import { graphHashOf } from '../rdf/canonical.ts';

/** What can be wrong with an archived capture. */
export type ProblemKind = 'missing-file' | 'unreadable' | 'record-type' | 'target-uri' | 'block-digest' | 'payload-digest' | 'graph-hash' | 'copy-changed';

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
  /** Crawl-log entries read, and WARC records checked, each once (a capture has one or two: the response or revisit, and its RDF; an import file's every record). */
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
 * block digest, the payload digest (WARC header, crawl log; in whatever algorithm and spelling an imported
 * record's source used), and for a changed graph the SHA-256 of the
 * N-Quads in its conversion record (the log's graph hash, exact or label-blind as it was made). Reads only; a record that cannot
 * be read is reported, never fatal.
 */
export async function verifyArchive(
  dataDir: string,
  store: CrawlLog,
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
      if (e.warcFile === undefined) continue;
      referenced.add(path.normalize(e.warcFile));
      // A version read from a stream (crawl --ldes) has its graph's record only: no response was fetched for it.
      if ((e.warcOffset === undefined || e.warcLength === undefined) && e.rdfOffset !== undefined && e.rdfLength !== undefined) {
        records++;
        checkGraph(dataDir, e, report);
        continue;
      }
      if (e.warcOffset === undefined || e.warcLength === undefined) continue;
      const checked = checkCapture(dataDir, e, report);
      // A copied record is counted once, with every other record of its import file (checkImported).
      if (!isImportFile(e.warcFile)) records += checked;
      if (e.rdfOffset !== undefined && e.rdfLength !== undefined) {
        records++;
        checkGraph(dataDir, e, report);
      }
    }
    o.onProgress?.(entries);
    if (page.length < LOG_PAGE) break;
    since = page.at(-1)!.id!;
  }
  records += checkImported(dataDir, referenced, report);
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
  const target = rec.headers.get('warc-target-uri')?.replace(/^<(.*)>$/, '$1');
  // An imported record keeps the URI as its source wrote it; the log has it normalised.
  const targetNorm = target === undefined ? undefined : normalizeUrl(target);
  if (![target, targetNorm].some((t) => t !== undefined && (t === e.url || t === e.finalUrl))) report({ ...where, kind: 'target-uri', detail: `the record is of ${target}, the log of ${e.finalUrl ?? e.url}` });
  checkBlock(rec, where, report);
  const recorded = rec.headers.get('warc-payload-digest');
  if (type === 'response') {
    // The payload is the entity with any chunking removed (what tools digest; a few digest it as sent).
    const entity = rec.block.subarray(rec.block.indexOf('\r\n\r\n') + 4);
    const payload = httpPayload(rec.block).body;
    const holds = (d: string) => digestMatches(payload, d) !== false || digestMatches(entity, d) !== false;
    if (recorded !== undefined && !holds(recorded)) report({ ...where, kind: 'payload-digest', detail: `the payload does not match the record's WARC-Payload-Digest ${recorded}` });
    if (e.checksum !== undefined && !holds(e.checksum)) report({ ...where, kind: 'payload-digest', detail: `the payload does not match the crawl log's digest ${e.checksum}` });
  } else if (e.checksum !== undefined && recorded !== undefined) {
    // A revisit has no payload to hash: its digest and the log's must agree where they use one algorithm.
    const [a, b] = [digestKey(recorded), digestKey(e.checksum)];
    if (a && b && a.split(':')[0] === b.split(':')[0] && a !== b) report({ ...where, kind: 'payload-digest', detail: `the record says ${recorded}, the crawl log ${e.checksum}` });
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
  // Any algorithm and spelling a WARC tool wrote (sha1 base32, sha256 hex…); one this cannot read is not judged.
  if (recorded !== undefined && digestMatches(rec.block, recorded) === false) report({ ...where, kind: 'block-digest', detail: `the block does not match its WARC-Block-Digest ${recorded}` });
}

/**
 * Every record of the import files (also those that are no version: requests, metadata, warcinfo):
 * its bytes must be those it was copied with (the sha1 its index holds), and its block and payload
 * digests, where the source gave them, must hold. Returns the records checked; an import file with an
 * index counts as referenced.
 */
function checkImported(dataDir: string, referenced: Set<string>, report: Report): number {
  let n = 0;
  for (const [file, records, bad] of eachImportIndex(dataDir)) {
    referenced.add(path.normalize(file));
    if (bad) report({ url: '', time: 0, file, offset: 0, kind: 'unreadable', detail: `${bad} lines of ${file}.records.jsonl are no record: the source and place of those imported records are not known, and they are not checked` });
    let abs: string;
    try {
      abs = warcPath(dataDir, file); // the one check every reader of a WARC path makes (src/archive/warc-files.ts)
    } catch {
      report({ url: '', time: 0, file, offset: 0, kind: 'missing-file', detail: `${file} is not in the archive, its index lists ${records.length} imported records` });
      continue;
    }
    for (const r of records) {
      const where = { url: r.uri ?? `(${r.type ?? 'untyped'} record ${r.id ?? 'without ID'})`, time: r.date ?? 0, file, offset: r.offset };
      let raw: Buffer;
      try {
        const fd = fs.openSync(abs, 'r');
        const buf = Buffer.alloc(r.length);
        try {
          fs.readSync(fd, buf, 0, r.length, r.offset);
        } finally {
          fs.closeSync(fd);
        }
        raw = zlib.gunzipSync(buf);
      } catch (err) {
        report({ ...where, kind: 'unreadable', detail: `${r.length} bytes at ${r.offset} are not the gzip member imported from ${r.source}@${r.sourceOffset}: ${(err as Error).message}` });
        continue;
      }
      n++;
      if (createHash('sha1').update(raw).digest('hex') !== r.sha1) {
        report({ ...where, kind: 'copy-changed', detail: `the record imported from ${r.source}@${r.sourceOffset}${r.id ? ` (${r.id})` : ''} is not the bytes it was copied with` });
        continue;
      }
      const rec = readRecord(dataDir, file, r.offset, r.length);
      checkBlock(rec, where, report);
      const recorded = rec.headers.get('warc-payload-digest');
      if (r.type === 'response' && recorded !== undefined && rec.block.subarray(0, 5).toString('latin1') === 'HTTP/') {
        const entity = rec.block.subarray(rec.block.indexOf('\r\n\r\n') + 4);
        if (digestMatches(httpPayload(rec.block).body, recorded) === false && digestMatches(entity, recorded) === false) {
          report({ ...where, kind: 'payload-digest', detail: `the payload of the record imported from ${r.source}@${r.sourceOffset} does not match its WARC-Payload-Digest ${recorded}` });
        }
      }
    }
  }
  return n;
}
