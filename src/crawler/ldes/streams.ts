import type { Quad } from '@rdfjs/types';
import { normalizeUrl, hostOf } from '../../frontier/normalize.ts';
import { readRecord } from '../../archive/warc-reader.ts';
import { httpPayload } from '../../archive/http-payload.ts';
import { decodeBody } from '../../fetch/decode.ts';
import { extract } from '../../extract/registry.ts';
import { parseContentType } from '../../util/content-type.ts';
import { headerValue } from '../../util/headers.ts';
import type { CrawlOptions, CrawlStore } from '../options.ts';
import { before, readPage, type PageMember, type PageReading, type StreamDescription } from './page.ts';
import { FALLBACK_PATHS, archiveMember, memberVersion, type MemberFate, type MemberVersion } from './member.ts';
import { MemberFile, type PageRecord } from './member-file.ts';

/** What `crawl --ldes` read and archived (CrawlSummary.ldes). */
export interface LdesSummary {
  /** Stream pages read: fetched in this run, and read back from the archive (immutable pages read before). */
  pages: { fetched: number; fromArchive: number };
  /** Pages that could not be had (after the crawl's retries), with why: their members wait for the next crawl. */
  failedPages: string[];
  members: number;
  /** Members archived as versions (new, changed), as the same graph again (unchanged), as deletions. */
  archived: { new: number; changed: number; unchanged: number; deleted: number };
  /** Members not archived: already archived (or older than the document's last capture), before --ldes-since, unreadable. */
  skipped: { notNewer: number; beforeSince: number; invalid: number };
  /** Members read but not archived because the crawl stopped before the stream's end: its resume archives them. */
  pending?: number;
  /** What the reading met (a stream without its description, a member without a time), at most MAX_DIAGNOSTICS. */
  diagnostics: string[];
}

const MAX_DIAGNOSTICS = 50;
const MAX_FAILED_LISTED = 100;

/** What the stage needs to read back a page archived by an earlier run. */
export interface LdesDeps {
  store: CrawlStore;
  dataDir: string;
  since?: number;
  cycleId?: number;
  /** Told each version and deletion a member gives, as a crawl tells its captures' (CrawlOptions.onVersion). */
  onVersion?: CrawlOptions['onVersion'];
  /** Loads a JSON-LD page's remote contexts (the crawl's polite, archived loader). */
  loadDocument?: (url: string) => Promise<unknown>;
  /** The crawl queued again what the store has queued (a one-off crawl's resume; not a re-crawl cycle's downloader). */
  resumesQueued: boolean;
  /** Offer a node to the crawl: `force` fetches it again although the store has it (a mutable page). */
  offer(url: string, force: boolean): void;
}

/**
 * The streams one crawl reads (`crawl --ldes`): every page it fetches that belongs to a stream is read for its
 * stream description, relations and members (readPage); each relation's node is offered to the crawl, or,
 * when an earlier run archived it with `Cache-Control: immutable`, read back from the archive instead of
 * fetched; members are gathered, and archived when the crawl has read the whole stream (`finish`), oldest
 * first, because the archive keeps a document's versions in time order and a stream's pages need not come
 * in time order. A crawl stopped early (a limit, a signal) archives none: its resume reads the stream again,
 * the immutable pages from the archive, and archives each member once.
 */
export class LdesStreams {
  readonly summary: LdesSummary = { pages: { fetched: 0, fromArchive: 0 }, failedPages: [], members: 0, archived: { new: 0, changed: 0, unchanged: 0, deleted: 0 }, skipped: { notNewer: 0, beforeSince: 0, invalid: 0 }, diagnostics: [] };
  private readonly roots = new Set<string>();
  private readonly pagesRead = new Set<string>();
  /** Pages read (fetched, or read back) or reported failed: what is left of pagesRead was never had. */
  private readonly settled = new Set<string>();
  private readonly descriptions = new Map<string, StreamDescription>();
  private readonly members = new Map<string, { m: PageMember; page: PageRecord; order: number }>();

  constructor(private readonly d: LdesDeps) {}

  /** The streams to read: each root (a view or the stream) is fetched again every crawl. */
  start(urls: readonly string[]): void {
    for (const raw of urls) {
      const url = normalizeUrl(raw);
      if (!url) continue;
      this.roots.add(url);
      this.d.offer(url, true);
    }
  }

  /** Whether a fetched document is a page of a stream: a root, a node a page led to, or one with stream vocabulary (a resumed crawl's queued page). */
  isPage(url: string): boolean {
    return this.roots.has(url) || this.pagesRead.has(url);
  }

  /** A page that could not be had: said in the summary; its members are read on a later crawl. */
  failed(url: string, why: string): void {
    this.pagesRead.add(url);
    this.settled.add(url);
    if (this.summary.failedPages.length < MAX_FAILED_LISTED) this.summary.failedPages.push(`${url}: ${why}`);
  }

  /** Reads a fetched page's quads; false when it holds nothing of a stream (then it is an ordinary document). */
  async read(url: string, quads: readonly Quad[], page: PageRecord): Promise<boolean> {
    const reading = readPage(quads);
    if (!reading.isStreamPage && !this.isPage(url)) return false;
    this.summary.pages.fetched++;
    await this.take(url, reading, page);
    return true;
  }

  private async take(url: string, reading: PageReading, page: PageRecord): Promise<void> {
    this.pagesRead.add(url);
    this.settled.add(url);
    for (const d of reading.descriptions) {
      // The first page to declare a path decides it (the root, usually); a later page adds what it lacked.
      const known = this.descriptions.get(d.stream);
      this.descriptions.set(d.stream, known ? {
        ...known, versionOfPath: known.versionOfPath ?? d.versionOfPath, timestampPath: known.timestampPath ?? d.timestampPath,
        deletePath: known.deletePath ?? d.deletePath, deleteObject: known.deleteObject ?? d.deleteObject,
      } : d);
      for (const u of d.unsupported) this.note(`stream ${d.stream}: ${u}`);
    }
    for (const m of reading.members) if (!this.members.has(m.id)) this.members.set(m.id, { m, page, order: this.members.size });
    const byNode = new Map<string, typeof reading.relations>();
    for (const r of reading.relations) byNode.set(r.node, [...(byNode.get(r.node) ?? []), r]);
    for (const [node, relations] of byNode) {
      if (this.pagesRead.has(node)) continue;
      if (this.d.since !== undefined && before(relations, this.d.since, this.onlyTimestampPath())) continue;
      this.pagesRead.add(node);
      await this.visit(node);
    }
  }

  /** A node a relation leads to: read back when an earlier run archived it immutable, else fetched (again, when it may have changed). */
  private async visit(node: string): Promise<void> {
    const row = await this.d.store.getDocument(node);
    // Unknown: queued as any URL. Queued by a stopped run: the resume has queued it again, unless this crawl
    // resumes nothing (a re-crawl cycle). Failed or skipped before: asked for again.
    if (!row || (row.state === 'queued' && this.d.resumesQueued)) return this.d.offer(node, false);
    if (row.state !== 'fetched') return this.d.offer(node, true);
    const archived = await this.archived(node, true);
    if (!archived) return this.d.offer(node, true);
    this.summary.pages.fromArchive++;
    await this.take(node, readPage(archived.quads), archived.page);
  }

  /**
   * A page the server answered 304 Not Modified: its last full response in the archive is read instead. False
   * when the archive has none (then it is no page of a stream, or one whose members a later crawl reads).
   */
  async readArchived(url: string): Promise<boolean> {
    const archived = await this.archived(url, false);
    if (!archived || (!readPage(archived.quads).isStreamPage && !this.isPage(url))) return false;
    this.summary.pages.fromArchive++;
    await this.take(url, readPage(archived.quads), archived.page);
    return true;
  }

  /** The page's last full response in the archive, parsed; with `immutable`, only if the server said it never changes (Cache-Control: immutable). */
  private async archived(url: string, immutable: boolean): Promise<{ quads: Quad[]; page: PageRecord } | undefined> {
    const captures = (await this.d.store.versions(url)).filter((e) => e.warcOffset !== undefined && e.status === 200).reverse();
    for (const e of captures) {
      let rec;
      try {
        rec = readRecord(this.d.dataDir, e.warcFile!, e.warcOffset!, e.warcLength!);
      } catch {
        return undefined; // fetched again: the archive's own damage is `verify`'s to report
      }
      if (rec.headers.get('warc-type') !== 'response') continue;
      const http = httpPayload(rec.block);
      if (immutable && !/\bimmutable\b/i.test(headerValue(http.headers, 'cache-control') ?? '')) return undefined;
      const decoded = await decodeBody(http.body, headerValue(http.headers, 'content-encoding'), 64 * 1024 * 1024);
      const { charset } = parseContentType(headerValue(http.headers, 'content-type'));
      const headers = Object.fromEntries(http.headers.map(([k, v]) => [k.toLowerCase(), v]));
      const result = await extract({ url: e.finalUrl ?? url, mediaType: e.mediaType ?? '', charset, body: decoded.body, headers }, { maxQuads: 5_000_000, loadDocument: this.d.loadDocument });
      return { quads: result.quads, page: { url, recordId: rec.headers.get('warc-record-id'), time: e.time } };
    }
    return undefined;
  }

  /** Pages a relation led to that the crawl never had (robots.txt, a filter, a failing origin): said with the rest. */
  private async reportUnread(): Promise<void> {
    const unread = [...this.pagesRead].filter((u) => !this.settled.has(u));
    if (unread.length === 0) return;
    for (const row of await this.d.store.getDocuments(unread)) {
      if (row.state === 'skipped' || row.state === 'failed') this.failed(row.url, `not fetched (${row.state}: datamonitor log --url says why)`);
    }
  }

  /** The timestamp path when every stream read so far agrees on one (--ldes-since compares relations on it). */
  private onlyTimestampPath(): string | undefined {
    const paths = new Set([...this.descriptions.values()].map((d) => d.timestampPath));
    return paths.size === 1 ? [...paths][0] : undefined;
  }

  private note(line: string): void {
    if (this.summary.diagnostics.length < MAX_DIAGNOSTICS && !this.summary.diagnostics.includes(line)) this.summary.diagnostics.push(line);
  }

  /** The description a member is read with: its stream's, the only one read, or the fallback paths (said once per stream). */
  private describe(stream: string): Required<Pick<StreamDescription, 'versionOfPath' | 'timestampPath'>> & StreamDescription {
    const only = this.descriptions.size === 1 ? [...this.descriptions.values()][0] : undefined;
    const d = this.descriptions.get(stream) ?? only ?? { stream, unsupported: [] };
    if (!d.versionOfPath) this.note(`stream ${stream} declares no ldes:versionOfPath: members read as versions by <${FALLBACK_PATHS.versionOfPath}>`);
    if (!d.timestampPath) this.note(`stream ${stream} declares no ldes:timestampPath: members dated by <${FALLBACK_PATHS.timestampPath}>`);
    return { ...d, versionOfPath: d.versionOfPath ?? FALLBACK_PATHS.versionOfPath, timestampPath: d.timestampPath ?? FALLBACK_PATHS.timestampPath };
  }

  /**
   * Archives the members read, oldest first (a crawl that stopped early archives none: `pending` says how many
   * wait for its resume). Returns the documents that got a member from a stream.
   */
  async finish(stopped: boolean): Promise<Set<string>> {
    const s = this.summary;
    s.members = this.members.size;
    const documents = new Set<string>();
    await this.reportUnread();
    if (stopped) {
      if (this.members.size > 0) s.pending = this.members.size;
      return documents;
    }
    const versions: Array<MemberVersion & { order: number }> = [];
    for (const { m, page, order } of this.members.values()) {
      const v = memberVersion(m, this.describe(m.stream), page);
      if (typeof v === 'string') {
        s.skipped.invalid++;
        this.note(v);
      } else if (this.d.since !== undefined && v.time < this.d.since) {
        s.skipped.beforeSince++;
      } else {
        versions.push({ ...v, order });
      }
    }
    versions.sort((a, b) => a.time - b.time || a.order - b.order);
    const files = new Map<string, MemberFile>();
    try {
      for (const v of versions) {
        const host = hostOf(v.page.url);
        let file = files.get(host);
        if (!file) files.set(host, (file = new MemberFile(this.d.dataDir, host)));
        const fate: MemberFate = await archiveMember(this.d.store, file, v, this.d);
        documents.add(v.document);
        if (fate === 'not-newer') s.skipped.notNewer++;
        else s.archived[fate]++;
      }
    } finally {
      // The records on disk before the log rows that point to them are committed.
      for (const f of files.values()) f.close();
    }
    await this.d.store.flush();
    return documents;
  }
}
