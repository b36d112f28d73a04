import fs from 'node:fs';
import { OpenWarcFile } from '../archive/open-file.ts';
import path from 'node:path';
import zlib from 'node:zlib';
import { createHash } from 'node:crypto';
import type { FetchOutcome, FetchResponse } from '../fetch/types.ts';
import { decodeBody } from '../fetch/decode.ts';
import { capture, type CaptureContext } from './capture.ts';
import { redirectRow } from './stages/redirect.ts';
import { ArchivedContexts, CONTEXT_DIAGNOSTIC, CONTEXT_LIMITS } from './contexts.ts';
import { ROBOTS_DIAGNOSTIC, archiveSideFetch, robotsProblem } from './prerequisites.ts';
import { PROOF_DOCUMENT_DIAGNOSTIC } from './detached-proofs.ts';
import { hostOf, normalizeUrl } from '../frontier/normalize.ts';
import { openStore } from '../store/index.ts';
import type { CrawlLog, DocumentStore, StoreLifecycle } from '../store/types.ts';
import { parseContentType } from '../util/content-type.ts';
import { FETCHED_FOR_HEADER, recoverOpenFiles, type ArchivedExchange, type ArchiveWriter, type ExchangeInput } from '../archive/warc-writer.ts';
import { readRecord } from '../archive/warc-reader.ts';
import { serializeRecord, sha1Digest } from '../archive/warc-record.ts';
import { scanWarc, type ScanError, type ScannedRecord } from '../archive/warc-scan.ts';
import { httpPayload } from '../archive/http-payload.ts';
import { headerValue, isRedirect, redirectTarget } from '../util/headers.ts';
import { digestKey, digestMatches } from '../archive/digest.ts';
import { IMPORT_DIR, INDEX_SUFFIX, readImportIndexes, type ImportedRecord } from '../archive/import-index.ts';
import { listWarcFiles } from '../archive/warc-files.ts';
import { parseN3Text } from '../extract/n3.ts';
import { archiveMember } from './ldes/member.ts';
import { LDES_MEMBER_HEADER, type MemberSink } from './ldes/member-file.ts';

/**
 * Imports WARC files made elsewhere (Heritrix, wget, Browsertrix, another datamonitor) into an archive,
 * preservation-grade: every record of a source file is kept byte for byte (a gzip member the source
 * holds is copied as it is, an uncompressed record is gzipped on its own) into one file of the archive,
 * `warc/import/<when>-<source name>.warc.gz`, in the source's order, with its own WARC-Record-ID;
 * nothing is made up (no request record the source did not have). Each response and revisit then goes
 * through the same capture step as a crawl (extracted, canonicalised, compared with the URL's last
 * version); the version's log entry points to the copied record, and its RDF is a conversion record
 * of ours written after it, `WARC-Refers-To` the source record. Where each record came from (source
 * file, offset, record ID) is in the file's record index (`<file>.records.jsonl`), which
 * `export --provenance` turns into the version's provenance. (Not a log diagnostic: `datamonitor log`
 * lists every capture with one, and an import's every version would crowd out its real problems.)
 *
 * A revisit (a deduplicating crawler's "same payload as before") is archived with the payload of the
 * response it refers to, found in this archive, from this run or any earlier import or crawl: by
 * `WARC-Refers-To` (record ID), by `WARC-Refers-To-Target-URI` and `-Date`, or by payload digest in
 * whatever form the source wrote it (sha1/sha256, base32/hex, prefixed or not). A URL's versions are
 * kept in time order: a response not newer than the archive's last capture of its URL is kept as a
 * record but not made a version (give the files oldest first). A source record already in the archive
 * (same ID, same bytes) is not copied again. A damaged or cut-short record is reported with its file
 * and offset, and the walk goes on with the next one it can find. Nothing is fetched: JSON-LD remote
 * contexts are taken from the imported files themselves (see `ArchivedContexts`).
 */

export interface ImportSummary {
  files: number;
  /** Source records read, and those copied into the archive (all but those it already held). */
  records: number;
  copied: number;
  /** Response and revisit records read, and those archived as a version (new, changed or unchanged) or a redirect. */
  responses: number;
  revisits: number;
  imported: number;
  /** Of those imported, redirects (3xx with a Location): logged as the crawl logs a redirect hop, no version. */
  redirects: number;
  /** Of those imported, responses a datamonitor crawl fetched for a document (contexts, proofs, representations): logged as such, no version. */
  fetchedFor: number;
  new: number;
  changed: number;
  unchanged: number;
  errors: number;
  skipped: {
    /** Kept as records, not versions: not newer than the archive's last capture of the URL (give files oldest first). */
    notNewer: number;
    /** Kept as records, not versions: no http(s) target URI or no HTTP response in the record. */
    notHttp: number;
    /** Kept as records, not versions: a revisit whose payload is nowhere in the archive (import the crawl's earlier files first). */
    revisitWithoutPayload: number;
    /** Not copied: the archive already holds the record (same WARC-Record-ID and bytes), from an earlier import. */
    alreadyImported: number;
  };
  /** Damaged or cut-short stretches of the files, `file at offset N: why` (every other record is archived). */
  unreadable: string[];
  /** A rebuild: versions whose RDF no conversion record of their file holds as extracted now (logged without it). */
  rdfNotFound?: number;
  seconds: number;
}

/** Decoded bodies above this are cut (and the version marked truncated), as the crawler's inflate limit does. */
const MAX_DECODED_BYTES = 64 * 1024 * 1024;
/** Earlier captures of a URL read when a revisit names its payload by digest only. */
const MAX_DIGEST_CANDIDATES = 50;

/** The archive's imported records, from the indexes of its import files: what revisits resolve against. */
class ImportIndex {
  readonly byId = new Map<string, ImportedRecord[]>();
  readonly byUriDate = new Map<string, ImportedRecord>();
  readonly byPayload = new Map<string, ImportedRecord>();

  constructor(dataDir: string) {
    for (const [, records] of readImportIndexes(dataDir)) for (const r of records) this.add(r);
  }

  add(r: ImportedRecord): void {
    if (r.id) this.byId.set(r.id, [...(this.byId.get(r.id) ?? []), r]);
    if (r.type === 'response' && r.uri && r.date !== undefined) {
      const key = `${r.uri} ${r.date}`;
      if (!this.byUriDate.has(key)) this.byUriDate.set(key, r);
      for (const d of r.payload ?? []) if (!this.byPayload.has(d)) this.byPayload.set(d, r);
    }
  }

  holds(id: string | undefined, sha1: string): boolean {
    return id !== undefined && (this.byId.get(id) ?? []).some((r) => r.sha1 === sha1);
  }
}

let fileSeq = 0;

/** The crawl-log line of a request the crawl made for its policy or a document, by what it was fetched for. */
const SIDE_DIAGNOSTICS = { robots: ROBOTS_DIAGNOSTIC, context: CONTEXT_DIAGNOSTIC, proof: PROOF_DOCUMENT_DIAGNOSTIC } as const;

type ScanItem = ScannedRecord | ScanError;

/** Where an import's records go: a copy in a new file of the archive (ImportFile), or where they are (InPlaceFile). */
interface RecordSink {
  /** The file the records are in, relative to the data directory. */
  readonly rel: string;
  /** The source file's records, in order. */
  scan(): Iterable<ScanItem>;
  /** Notes a record copied (the file's record index). */
  keep(at: ImportedRecord): void;
  /** The offset of record `r`, whose gzip member is `bytes`, in `rel`. */
  place(r: ScannedRecord, bytes: Buffer): number;
  /** Where the conversion record of record `id` with `nquads` lies in `rel` (`gz`: its gzip member); undefined: nowhere. */
  conversion(id: string | undefined, nquads: string, gz: () => Buffer): { offset: number; length: number } | undefined;
  close(): void;
}

/** One source file's copy in the archive: written under `.open`, renamed with its index when closed. */
class ImportFile implements RecordSink {
  readonly rel: string;
  private readonly file: OpenWarcFile;
  private readonly records: ImportedRecord[] = [];

  constructor(private readonly dataDir: string, private readonly source: string) {
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
    const base = path.basename(source).replace(/\.gz$/, '').replace(/\.warc$/, '').replace(/[^A-Za-z0-9._-]/g, '_');
    this.rel = path.join(IMPORT_DIR, `${stamp}-${process.pid}-${String(fileSeq++).padStart(4, '0')}-${base}.warc.gz`);
    this.file = new OpenWarcFile(dataDir, this.rel);
  }

  scan(): Iterable<ScanItem> {
    return scanWarc(this.source);
  }

  keep(at: ImportedRecord): void {
    this.records.push(at);
  }

  place(_r: ScannedRecord, bytes: Buffer): number {
    return this.append(bytes);
  }

  conversion(_id: string | undefined, _nquads: string, gz: () => Buffer): { offset: number; length: number } {
    const bytes = gz();
    return { offset: this.append(bytes), length: bytes.length };
  }

  /** Appends whole gzip members; returns the offset of the first. */
  append(buf: Buffer): number {
    return this.file.append(buf);
  }

  /** Closes the file and writes its index; a file nothing was copied into is not made. */
  close(): void {
    if (!this.file.close()) return;
    const abs = path.join(this.dataDir, this.rel);
    fs.writeFileSync(abs + INDEX_SUFFIX + '.tmp', this.records.map((r) => JSON.stringify(r) + '\n').join(''));
    fs.renameSync(abs + INDEX_SUFFIX + '.tmp', abs + INDEX_SUFFIX);
  }
}

/** Records read past the one being captured to find its conversion record (the crawl and import write it next). */
const CONVERSION_LOOKAHEAD = 16;

/**
 * A file of the archive whose records a rebuild reads where they are (nothing is written into it): a
 * version's RDF is the conversion record the crawl or import wrote after the record (`WARC-Refers-To` it),
 * when it holds the N-Quads extracted now. The file is read once: the records just after the one being
 * captured are read ahead for its conversion record, and yielded from there; only a conversion not
 * found there (none was written, or a writer that put it farther) costs a second pass over the file.
 */
class InPlaceFile implements RecordSink {
  private readonly conversions = new Map<string, { offset: number; length: number; sha1: string }>();
  private readonly ahead: ScanItem[] = [];
  private source?: Generator<ScanItem>;
  /** What reading ahead met: thrown where the main pass reaches it. */
  private failed?: { error: unknown };
  private scannedAll = false;

  constructor(private readonly abs: string, readonly rel: string) {}

  *scan(): Generator<ScanItem> {
    this.source = scanWarc(this.abs);
    try {
      for (let item = this.ahead.shift() ?? this.pull(); item; item = this.ahead.shift() ?? this.pull()) yield item;
    } finally {
      this.source.return(undefined);
    }
  }

  keep(): void {}

  place(r: ScannedRecord): number {
    // Read back by offset and length as one gzip member, as every file of an archive holds its records.
    if (!r.member) throw new Error(`the record at offset ${r.offset} is not a gzip member of its own; it cannot be pointed at`);
    return r.offset;
  }

  conversion(id: string | undefined, nquads: string): { offset: number; length: number } | undefined {
    if (id === undefined) return undefined;
    try {
      for (let n = 0; !this.conversions.has(id) && n < CONVERSION_LOOKAHEAD; n++) {
        const item = this.pull();
        if (!item) break;
        this.ahead.push(item);
      }
    } catch (e) {
      this.failed = { error: e };
    }
    if (!this.conversions.has(id) && !this.scannedAll) this.scanAll();
    const c = this.conversions.get(id);
    this.conversions.delete(id);
    return c && c.sha1 === createHash('sha1').update(nquads, 'utf8').digest('hex') ? { offset: c.offset, length: c.length } : undefined;
  }

  close(): void {}

  /** The file's next record, its conversion record noted; undefined at its end. */
  private pull(): ScanItem | undefined {
    if (this.failed) throw this.failed.error;
    const next = this.source?.next();
    if (!next || next.done) return undefined;
    this.note(next.value);
    return next.value;
  }

  private note(r: ScanItem): void {
    if ('error' in r || r.headers.get('warc-type') !== 'conversion' || !r.member) return;
    const of = r.headers.get('warc-refers-to');
    if (of) this.conversions.set(of, { offset: r.offset, length: r.length, sha1: createHash('sha1').update(r.block).digest('hex') });
  }

  /** Every conversion record of the file, by a pass of its own. */
  private scanAll(): void {
    this.scannedAll = true;
    try {
      for (const r of scanWarc(this.abs)) this.note(r);
    } catch {
      // a damaged stretch: the main pass reports it
    }
  }
}

/**
 * The archive writer capture uses during an import: the record is already copied (or, in a rebuild, is
 * where it was), so a version's "write" is only its conversion record (the RDF), placed after the copy in
 * the same file (or found there).
 */
class ImportWriter implements ArchiveWriter {
  current?: { file: RecordSink; at: Placed; date: Date };
  /** Versions whose RDF the file did not hold (a rebuild): counted by the caller. */
  rdfNotFound = 0;

  async writeExchange(ex: ExchangeInput): Promise<ArchivedExchange> {
    const c = this.current!;
    const out: ArchivedExchange = { file: c.at.file, offset: c.at.offset, length: c.at.length, recordId: c.at.id ?? '' };
    if (ex.nquads !== undefined) {
      const nquads = ex.nquads;
      const gz = () => zlib.gzipSync(serializeRecord({
        type: 'conversion', date: c.date, targetUri: ex.response.finalUrl, contentType: 'application/n-quads',
        headers: c.at.id ? [['WARC-Refers-To', c.at.id]] : [], block: Buffer.from(nquads, 'utf8'),
      }).bytes);
      const at = c.file.conversion(c.at.id, nquads, gz);
      if (at) {
        out.rdfOffset = at.offset;
        out.rdfLength = at.length;
      } else {
        this.rdfNotFound++;
      }
    }
    return out;
  }

  async close(): Promise<void> {}
}

/** Where a record is in the archive. */
type Placed = Pick<ImportedRecord, 'id' | 'file' | 'offset' | 'length'>;

interface Payload {
  /** The original response's message: status, headers (for Content-Encoding), payload. */
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Buffer;
}

/**
 * One import's state: the store it captures into, the index of records copied so far (revisits resolve
 * through it) and the running summary. Each WARC record goes copy, then capture, as a crawl's response would.
 */
class WarcImport {
  readonly writer = new ImportWriter();
  readonly index: ImportIndex;
  readonly ctx: CaptureContext;

  constructor(
    readonly dataDir: string,
    readonly store: StoreLifecycle & DocumentStore & CrawlLog,
    readonly s: ImportSummary,
    contexts: ReturnType<typeof archivedContexts>,
    readonly onProgress?: (s: ImportSummary) => void,
    /** A rebuild: the records are the archive's own, read where they are, none skipped as already held. */
    readonly inPlace = false,
  ) {
    this.index = new ImportIndex(dataDir);
    this.ctx = { store, warc: this.writer, mime: [], maxQuads: 5_000_000, loadDocument: contexts.load };
  }

  /** Copies every record of `file` into the archive (`dest`: a new file, or where it is) and captures its responses and revisits. */
  async importFile(file: string, dest: RecordSink = new ImportFile(this.dataDir, file)): Promise<void> {
    this.s.files++;
    try {
      for (const item of dest.scan()) {
        if ('error' in item) {
          this.s.unreadable.push(`${file} at offset ${item.offset}: ${item.error}`);
          continue;
        }
        await this.importRecord(file, dest, item);
      }
    } catch (e) {
      this.s.unreadable.push(`${file}: ${(e as Error).message}`);
    } finally {
      dest.close();
    }
  }

  async importRecord(file: string, dest: RecordSink, r: ScannedRecord): Promise<void> {
    this.s.records++;
    const id = r.headers.get('warc-record-id');
    // A rebuild reads the archive's own records: none is held already, and none goes in an import's index.
    const sha1 = this.inPlace ? undefined : createHash('sha1').update(r.raw).digest('hex');
    if (sha1 !== undefined && this.index.holds(id, sha1)) {
      this.s.skipped.alreadyImported++;
      return;
    }
    const type = r.headers.get('warc-type');
    const url = normalizeUrl(unbracket(r.headers.get('warc-target-uri') ?? '')) ?? undefined;
    const time = Date.parse(r.headers.get('warc-date') ?? '');
    const isHttp = (type === 'response' || type === 'revisit') && url !== undefined && /^https?:/.test(url) && Number.isFinite(time);
    const msg = isHttp && r.block.subarray(0, 5).toString('latin1') === 'HTTP/' ? httpPayload(r.block) : undefined;
    const bytes = r.member ?? zlib.gzipSync(r.raw);
    const at: Placed = { id, file: dest.rel, offset: dest.place(r, bytes), length: bytes.length };
    if (sha1 !== undefined) this.keep(dest, r, { ...at, type, uri: url, date: Number.isFinite(time) ? time : undefined, source: path.resolve(file), sourceOffset: r.offset, sha1 }, msg);
    this.s.copied++;
    if ((type === 'conversion' || type === 'metadata') && r.headers.has(LDES_MEMBER_HEADER.toLowerCase()) && url) return this.streamMember(r, at, url, time);
    if (type !== 'response' && type !== 'revisit') return;
    this.s[type === 'response' ? 'responses' : 'revisits']++;
    const head = /^HTTP\/([\d.]+)/.exec(r.block.subarray(0, 16).toString('latin1'));
    if (!url || !isHttp || (type === 'response' && !msg)) {
      this.s.skipped.notHttp++;
      return;
    }
    this.writer.current = { file: dest, at, date: new Date(time) };
    const status = { code: msg?.status ?? 200, text: msg?.statusText ?? '', version: head?.[1] ?? '1.1' };
    if (type === 'response') return this.archive(url, time, r, status, msg!.headers, msg!.body, headerValue(msg!.headers, 'content-encoding'));
    if (msg?.status === 304) return this.archive(url, time, r, status, msg.headers, Buffer.alloc(0), undefined);
    const original = await this.resolveRevisit(r, url);
    if (!original) {
      this.s.skipped.revisitWithoutPayload++;
      return;
    }
    // The revisit's own head (its date, its status) where it has one, the payload's encoding from the original.
    const own = msg ?? original;
    return this.archive(url, time, r, { ...status, code: own.status, text: own.statusText }, own.headers, original.body, headerValue(original.headers, 'content-encoding'));
  }

  /**
   * A stream member's record (`crawl --ldes`, src/crawler/ldes/): its version (a conversion record of its graph)
   * or deletion (a metadata record) logged as the crawl logged it, pointing at the record where it now is.
   */
  private async streamMember(r: ScannedRecord, at: Placed, url: string, time: number): Promise<void> {
    if (!Number.isFinite(time)) return;
    const deleted = r.headers.get('warc-type') === 'metadata';
    const quads = deleted ? [] : (await parseN3Text(r.block.toString('utf8'), 'N-Quads', url, 5_000_000)).quads;
    const page = { url: unbracket(r.headers.get('warc-refers-to-target-uri') ?? ''), recordId: r.headers.get('warc-refers-to'), time: Date.parse(r.headers.get('warc-refers-to-date') ?? '') };
    const placed: MemberSink = { rel: at.file, write: () => ({ offset: at.offset, length: at.length }), writeDeletion: () => undefined };
    const fate = await archiveMember(this.store, placed, { id: r.headers.get(LDES_MEMBER_HEADER.toLowerCase())!, document: url, time, deleted, quads, page });
    if (fate === 'not-newer') {
      this.s.skipped.notNewer++;
      return;
    }
    this.s.imported++;
    this.s[fate === 'deleted' ? 'changed' : fate]++;
    this.onProgress?.(this.s);
  }

  /** A copied record in its file's index and in this run's (revisits later in the run resolve through it), a response with its payload digests. */
  private keep(dest: RecordSink, r: ScannedRecord, at: ImportedRecord, msg: { body: Buffer } | undefined): void {
    if (at.type === 'response' && msg) {
      const recorded = digestKey(r.headers.get('warc-payload-digest'));
      at.payload = [digestKey(`sha1:${createHash('sha1').update(msg.body).digest('hex')}`)!, digestKey(`sha256:${createHash('sha256').update(msg.body).digest('hex')}`)!];
      if (recorded && !at.payload.includes(recorded)) at.payload.push(recorded);
    }
    dest.keep(at);
    this.index.add(at);
  }

  /** The payload of the archived response at `at`, if it is a response and (when given) has `digest`. */
  private payloadAt(at: { file: string; offset: number; length: number }, digest: string | undefined): Payload | undefined {
    let rec;
    try {
      rec = readRecord(this.dataDir, at.file, at.offset, at.length);
    } catch {
      return undefined;
    }
    if (rec.headers.get('warc-type') !== 'response') return undefined;
    const m = httpPayload(rec.block);
    if (digest && digestMatches(m.body, digest) === false && digestMatches(parseEntity(rec.block), digest) === false) return undefined;
    return { status: m.status, statusText: m.statusText, headers: m.headers, body: m.body };
  }

  /** The payload a revisit stands for, from this archive: by record ID, by target URI and date, by digest. */
  private async resolveRevisit(r: ScannedRecord, url: string): Promise<Payload | undefined> {
    const digest = r.headers.get('warc-payload-digest');
    const refId = r.headers.get('warc-refers-to');
    for (const at of refId ? this.index.byId.get(refId) ?? [] : []) {
      const p = this.payloadAt(at, digest);
      if (p) return p;
    }
    const refUri = normalizeUrl(unbracket(r.headers.get('warc-refers-to-target-uri') ?? '') || '');
    const refDate = Date.parse(r.headers.get('warc-refers-to-date') ?? '');
    if (refUri && Number.isFinite(refDate)) {
      const imported = this.index.byUriDate.get(`${refUri} ${refDate}`);
      const p = imported && this.payloadAt(imported, digest);
      if (p) return p;
      for (const v of await this.store.versions(refUri)) {
        if (v.time !== refDate || !v.warcFile) continue;
        const q = this.payloadAt({ file: v.warcFile, offset: v.warcOffset!, length: v.warcLength! }, digest);
        if (q) return q;
      }
    }
    if (!digest) return undefined;
    const key = digestKey(digest);
    const imported = key ? this.index.byPayload.get(key) : undefined;
    const p = imported && this.payloadAt(imported, digest);
    if (p) return p;
    // An earlier crawl's captures of the URL: its log holds sha1 digests, the revisit may use another.
    const candidates = (await this.store.versions(refUri ?? url)).filter((v) => v.warcFile && v.status >= 200 && v.status < 300 && v.change !== 'unchanged');
    for (const v of candidates.reverse().slice(0, MAX_DIGEST_CANDIDATES)) {
      if (plainlyOther(v.checksum, key)) continue;
      const q = this.payloadAt({ file: v.warcFile!, offset: v.warcOffset!, length: v.warcLength! }, digest);
      if (q) return q;
    }
    return undefined;
  }

  private async archive(url: string, time: number, r: ScannedRecord, status: { code: number; text: string; version: string }, headers: [string, string][], payload: Buffer, encoding: string | undefined): Promise<void> {
    const decoded = await decodeBody(payload, encoding, MAX_DECODED_BYTES, { cut: r.headers.has('warc-truncated') });
    const response: FetchResponse = {
      requestUrl: url, finalUrl: url, hops: [], status: status.code, statusText: status.text, httpVersion: status.version,
      requestHeaders: [], headers, rawBody: payload, body: decoded.body,
      truncated: decoded.truncated || r.headers.has('warc-truncated'),
      ...parseContentType(headerValue(headers, 'content-type')),
      startedAt: new Date(time), durationMs: 0, notModified: status.code === 304,
    };
    const fetchedFor = r.headers.get(FETCHED_FOR_HEADER.toLowerCase());
    if (fetchedFor) return this.fetchedFor(fetchedFor, url, response);
    const prev = await this.store.getDocument(url);
    if (prev?.lastFetched !== undefined && prev.lastFetched >= time) {
      this.s.skipped.notNewer++;
      return;
    }
    if (!prev) await this.store.addDocuments([{ url, host: hostOf(url), depth: 0 }]);
    if (isRedirect(response)) return this.redirect(url, response);
    const outcome: FetchOutcome = { response };
    if (decoded.error) outcome.error = { code: 'decode', message: `could not decode the body of ${url}: ${decoded.error}` };
    const doc = await capture(url, outcome, this.ctx, prev);
    this.s.imported++;
    if (doc.change === 'error') this.s.errors++;
    else this.s[doc.change]++;
    this.onProgress?.(this.s);
  }

  /**
   * A response the crawl fetched for a document rather than as one (FETCHED_FOR_HEADER): logged as the crawl
   * logs it, with no documents row and no version. A context or proof's row is archiveSideFetch's; a
   * representation's (`--variants`) keeps its reason, not the comparison the crawl made, which needs the
   * document's other representations in memory.
   */
  private async fetchedFor(kind: string, url: string, r: FetchResponse): Promise<void> {
    const at = this.writer.current!.at;
    this.s.imported++;
    this.s.fetchedFor++;
    if (kind === 'robots' || kind === 'context' || kind === 'proof') {
      const problem = kind === 'robots' ? robotsProblem(r.status) : r.status === 200 ? undefined : `HTTP ${r.status}`;
      return archiveSideFetch({ warc: this.writer, store: this.store }, url, r, problem, SIDE_DIAGNOSTICS[kind], kind);
    }
    await this.store.logFetch({
      url, finalUrl: url, time: r.startedAt.getTime(), status: r.status, headers: r.headers, durationMs: 0, bytes: r.rawBody.length,
      mediaType: r.mediaType, checksum: sha1Digest(r.rawBody), change: 'unchanged', reason: 'variant', triples: 0,
      diagnostics: [`info: a representation of ${url} (--variants), read back from its WARC record: not compared with the others again`],
      warcFile: at.file, warcOffset: at.offset, warcLength: at.length,
    }, {});
  }

  /** Logs a redirect hop the way the crawl does (src/crawler/stages/redirect.ts): the URL is known (queued) before it is fetched. */
  private async redirect(url: string, response: FetchResponse): Promise<void> {
    const at = this.writer.current!.at;
    const to = redirectTarget(response.status, response.headers, url)!;
    const target = to.url && normalizeUrl(to.url.href);
    // Not a URL: said in the row's error, as the crawl says it.
    const error = target ? undefined : `redirected (${response.status}) to ${JSON.stringify(to.text)}, which is not an http(s) URL`;
    const prev = await this.store.getDocument(url);
    await this.store.logFetch(...redirectRow(url, response, prev, { file: at.file, offset: at.offset, length: at.length, recordId: at.id ?? '' }, error));
    this.s.imported++;
    this.s.redirects++;
    this.onProgress?.(this.s);
  }
}

function zeroSummary(): ImportSummary {
  return {
    files: 0, records: 0, copied: 0, responses: 0, revisits: 0, imported: 0, redirects: 0, fetchedFor: 0, new: 0, changed: 0, unchanged: 0, errors: 0,
    skipped: { notNewer: 0, notHttp: 0, revisitWithoutPayload: 0, alreadyImported: 0 }, unreadable: [], seconds: 0,
  };
}

export async function importWarcs(files: string[], o: { dataDir: string; store?: StoreLifecycle & DocumentStore & CrawlLog; onProgress?: (s: ImportSummary) => void }): Promise<ImportSummary> {
  const t0 = Date.now();
  const s = zeroSummary();
  fs.mkdirSync(o.dataDir, { recursive: true });
  const store = o.store ?? (await openStore(o.dataDir));
  await store.init();
  await recoverOpenFiles(o.dataDir, (rels) => store.warcEnds(rels));
  const run = new WarcImport(o.dataDir, store, s, archivedContexts(files), o.onProgress);
  try {
    for (const file of files) await run.importFile(file);
  } finally {
    await store.flush();
    if (!o.store) await store.close();
  }
  s.seconds = (Date.now() - t0) / 1000;
  return s;
}

/**
 * Makes the crawl log and documents of `store` (a new, empty one) again from the WARC files of `dataDir`,
 * as an import of them would, but reading each record where it is: a version's log row points at the
 * crawl's (or earlier import's) own record and at the conversion record written after it. Nothing in the
 * data directory is written or moved (an unfinished `.open` file is read as it is, not cut or renamed).
 * Files go in the order they were begun (the time in their names), so each URL's captures come oldest
 * first, and capture judges each new, changed or unchanged against the one before, as the crawl did.
 */
export async function rebuildFromWarcs(o: { dataDir: string; store: StoreLifecycle & DocumentStore & CrawlLog; onProgress?: (s: ImportSummary) => void }): Promise<ImportSummary> {
  const t0 = Date.now();
  const s = zeroSummary();
  const { closed, open } = listWarcFiles(o.dataDir);
  const files = [...closed.map((rel) => ({ rel, name: rel })), ...open.map((rel) => ({ rel: rel.slice(0, -'.open'.length), name: rel }))]
    // Then by name, numbers as numbers: one writer's files of one second differ in their sequence number (…-9-…, …-10-…).
    .sort((a, b) => beganAt(a.rel).localeCompare(beganAt(b.rel)) || a.rel.localeCompare(b.rel, 'en', { numeric: true }));
  const abs = (name: string) => path.join(o.dataDir, name);
  const run = new WarcImport(o.dataDir, o.store, s, archivedContexts(files.map((f) => abs(f.name))), o.onProgress, true);
  try {
    for (const f of files) await run.importFile(abs(f.name), new InPlaceFile(abs(f.name), f.rel));
  } finally {
    await o.store.flush();
  }
  s.rdfNotFound = run.writer.rdfNotFound;
  s.seconds = (Date.now() - t0) / 1000;
  return s;
}

/**
 * When a file of the archive was begun, as its name says: `datamonitor-20261206041615-…` (a crawl's) or
 * `20261206T041615-…` (an import's); a name with neither sorts first.
 */
function beganAt(rel: string): string {
  const m = /(\d{8})T?(\d{6})/.exec(path.basename(rel));
  return m ? m[1]! + m[2]! : '';
}

/** The logged digest is of the same algorithm as `key` and differs: no need to read the record. */
function plainlyOther(logged: string | undefined, key: string | undefined): boolean {
  const k = digestKey(logged);
  return k !== undefined && key !== undefined && k.split(':')[0] === key.split(':')[0] && k !== key;
}

/** WARC 1.0 wrote `<uri>`; 1.1 writes the URI bare. */
function unbracket(uri: string): string {
  return uri.startsWith('<') && uri.endsWith('>') ? uri.slice(1, -1) : uri;
}

/** The entity of a response block as stored (still chunked if it was): some tools digest that. */
function parseEntity(block: Buffer): Buffer {
  const end = block.indexOf('\r\n\r\n');
  return end < 0 ? Buffer.alloc(0) : block.subarray(end + 4);
}

/**
 * The JSON responses of the files, as contexts for the documents of the import. A damaged stretch is
 * passed over here; the main pass reports it.
 */
function archivedContexts(files: string[]): ArchivedContexts {
  const contexts = new ArchivedContexts();
  for (const file of files) {
    try {
      for (const r of scanWarc(file)) {
        if ('error' in r || r.headers.get('warc-type') !== 'response' || r.block.subarray(0, 5).toString('latin1') !== 'HTTP/') continue;
        const url = normalizeUrl(unbracket(r.headers.get('warc-target-uri') ?? ''));
        if (!url) continue;
        const m = httpPayload(r.block);
        contexts.offerRedirect(url, m.status, m.headers);
        const { mediaType } = parseContentType(headerValue(m.headers, 'content-type'));
        if (!/json/.test(mediaType) || m.body.length > CONTEXT_LIMITS.maxBytes + 64 * 1024) continue;
        const encoding = headerValue(m.headers, 'content-encoding');
        // Small enough to decode at once: a context is a few KB.
        const body = encoding ? decodeSync(m.body, encoding) : m.body;
        if (body) contexts.offer(url, m.status, mediaType, body);
      }
    } catch {
      // reported by the main pass
    }
  }
  return contexts;
}

function decodeSync(body: Buffer, encoding: string): Buffer | undefined {
  const max = { maxOutputLength: CONTEXT_LIMITS.maxBytes + 64 * 1024 };
  try {
    const e = encoding.trim().toLowerCase();
    if (e === 'gzip' || e === 'x-gzip') return zlib.gunzipSync(body, max);
    if (e === 'br') return zlib.brotliDecompressSync(body, max);
    if (e === 'deflate') return zlib.inflateSync(body, max);
    return e === 'identity' ? body : undefined;
  } catch {
    return undefined;
  }
}
