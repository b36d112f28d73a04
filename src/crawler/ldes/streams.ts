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
import { FALLBACK_PATHS, archiveMember, memberVersion, type MemberFate } from './member.ts';
import { MemberFile, type PageRecord } from './member-file.ts';
import { MemberSpill } from './member-spill.ts';

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
 * fetched; members are kept on disk as they are read (MemberSpill: memory stays bounded whatever the stream's
 * size), and archived when the crawl has read the whole stream (`finish`), oldest first, because the archive
 * keeps a document's versions in time order and a stream's pages need not come in time order. A crawl stopped
 * early (a limit, a cycle's time, a signal) archives the members no page left unread can precede (`safeBefore`);
 * its resume reads the stream again, the immutable pages from the archive, and archives each member once.
 */
export class LdesStreams {
  readonly summary: LdesSummary = { pages: { fetched: 0, fromArchive: 0 }, failedPages: [], members: 0, archived: { new: 0, changed: 0, unchanged: 0, deleted: 0 }, skipped: { notNewer: 0, beforeSince: 0, invalid: 0 }, diagnostics: [] };
  private readonly roots = new Set<string>();
  private readonly pagesRead = new Set<string>();
  /** Pages read (fetched, or read back) or reported failed: what is left of pagesRead was never had. */
  private readonly settled = new Set<string>();
  private readonly descriptions = new Map<string, StreamDescription>();
  /** Pages that could not be had: unread for `safeBefore`, though settled for the summary. */
  private readonly failedPages = new Set<string>();
  /** For each node a relation led to: the lower bounds relations put on its members' times (TREE §Relations). */
  private readonly lowerBounds = new Map<string, Array<{ path?: string; time: number }>>();
  /** The descriptions (`signature`) each stream's spilled members were keyed with: `finish` keys again those read with one since completed. */
  private readonly keyedWith = new Map<string, Set<string>>();
  private readonly spill: MemberSpill;

  constructor(private readonly d: LdesDeps) {
    this.spill = new MemberSpill(d.dataDir);
  }

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
    this.failedPages.add(url);
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
    for (const m of reading.members) this.keep(m, page);
    const byNode = new Map<string, typeof reading.relations>();
    for (const r of reading.relations) {
      byNode.set(r.node, [...(byNode.get(r.node) ?? []), r]);
      const t = r.value === undefined ? Number.NaN : Date.parse(r.value);
      if ((r.type === 'GreaterThanRelation' || r.type === 'GreaterThanOrEqualToRelation') && Number.isFinite(t)) {
        this.lowerBounds.set(r.node, [...(this.lowerBounds.get(r.node) ?? []), { path: r.path, time: t }]);
      }
    }
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
    const d = this.known(stream);
    if (!d.versionOfPath) this.note(`stream ${stream} declares no ldes:versionOfPath: members read as versions by <${FALLBACK_PATHS.versionOfPath}>`);
    if (!d.timestampPath) this.note(`stream ${stream} declares no ldes:timestampPath: members dated by <${FALLBACK_PATHS.timestampPath}>`);
    return { ...d, versionOfPath: d.versionOfPath ?? FALLBACK_PATHS.versionOfPath, timestampPath: d.timestampPath ?? FALLBACK_PATHS.timestampPath };
  }

  /** The description known so far, as `describe` completes it, without saying what it lacks (a later page may say it). */
  private paths(stream: string): Required<Pick<StreamDescription, 'versionOfPath' | 'timestampPath'>> & StreamDescription {
    const d = this.known(stream);
    return { ...d, versionOfPath: d.versionOfPath ?? FALLBACK_PATHS.versionOfPath, timestampPath: d.timestampPath ?? FALLBACK_PATHS.timestampPath };
  }

  private known(stream: string): StreamDescription {
    const only = this.descriptions.size === 1 ? [...this.descriptions.values()][0] : undefined;
    return this.descriptions.get(stream) ?? only ?? { stream, unsupported: [] };
  }

  /** A member read: kept on disk, keyed by its time as the stream's description read so far gives it. */
  private keep(m: PageMember, page: PageRecord): void {
    const d = this.paths(m.stream);
    const v = memberVersion(m, d, page);
    if (!this.spill.put(m, page, typeof v === 'string' ? Number.NaN : v.time)) return;
    this.summary.members++;
    const used = this.keyedWith.get(m.stream) ?? new Set<string>();
    used.add(signature(d));
    this.keyedWith.set(m.stream, used);
  }

  /**
   * The time before which a crawl stopped before the stream's end archives members now. The rule: a member
   * can be archived only when no member of the same document with an earlier time can still come, or the
   * archive would get that document's versions out of time order. Every member still to come is on a page
   * not read: a node a relation led to that was not had (queued when the crawl stopped, failed, or not fetched),
   * or a root not read; any page not yet known is reachable only through one of those. A relation's
   * tree:GreaterThan(OrEqualTo)Relation on the stream's timestampPath bounds the times of every member
   * reachable from its node (TREE §Relations), so the members before the lowest bound of the unread pages
   * are safe (strictly before: an equal time may still come). One unread page without such a bound (a plain
   * tree:Relation, a bound on another path, a root) can hold any time: then nothing is archived, and the
   * resume archives everything. The pages are in time order when a stream's relations say so (a view by time,
   * as `serve`'s and most publishers'); a stream read in any other order is archived only when read to its end.
   */
  private safeBefore(): number {
    const timePaths = new Set([...this.keyedWith.keys()].map((stream) => this.paths(stream).timestampPath));
    let bound = Number.POSITIVE_INFINITY;
    const unread = [...this.roots, ...this.pagesRead].filter((u) => !this.settled.has(u) || this.failedPages.has(u));
    for (const u of unread) {
      const known = (this.lowerBounds.get(u) ?? []).filter((b) => b.path !== undefined && timePaths.size === 1 && timePaths.has(b.path));
      bound = Math.min(bound, known.length ? Math.max(...known.map((b) => b.time)) : Number.NEGATIVE_INFINITY);
      if (bound === Number.NEGATIVE_INFINITY) break;
    }
    return bound;
  }

  /** Members kept before a later page completed their stream's description are keyed again by the complete one. */
  private rekey(): void {
    for (const [stream, used] of this.keyedWith) {
      const now = signature(this.paths(stream));
      if (used.size === 1 && used.has(now)) continue;
      const d = this.paths(stream);
      this.spill.rekey(stream, (m) => {
        const v = memberVersion(m, d, { url: '', time: 0 });
        return typeof v === 'string' ? Number.NaN : v.time;
      });
      this.keyedWith.set(stream, new Set([now]));
    }
  }

  /**
   * Archives the members read, oldest first, read back from the spill a batch at a time. A crawl stopped early
   * archives those before `safeBefore` and `pending` says how many wait for its resume. Returns the documents
   * that got a member from a stream.
   */
  async finish(stopped: boolean): Promise<Set<string>> {
    const s = this.summary;
    try {
      await this.reportUnread();
      this.rekey();
      const upTo = stopped ? this.safeBefore() : Number.POSITIVE_INFINITY;
      const documents = upTo === Number.NEGATIVE_INFINITY ? new Set<string>() : await this.archiveSpilled(upTo, stopped);
      if (stopped && this.spill.size > 0) s.pending = this.spill.size;
      return documents;
    } finally {
      this.spill.close();
    }
  }

  private async archiveSpilled(upTo: number, forget: boolean): Promise<Set<string>> {
    const s = this.summary;
    const documents = new Set<string>();
    const files = new Map<string, MemberFile>();
    try {
      for (const batch of this.spill.inOrder(upTo)) {
        for (const { m, page } of batch) {
          const v = memberVersion(m, this.describe(m.stream), page);
          if (typeof v === 'string') {
            s.skipped.invalid++;
            this.note(v);
            continue;
          }
          if (this.d.since !== undefined && v.time < this.d.since) {
            s.skipped.beforeSince++;
            continue;
          }
          const host = hostOf(v.page.url);
          let file = files.get(host);
          if (!file) files.set(host, (file = new MemberFile(this.d.dataDir, host)));
          const fate: MemberFate = await archiveMember(this.d.store, file, v, this.d);
          documents.add(v.document);
          if (fate === 'not-newer') s.skipped.notNewer++;
          else s.archived[fate]++;
        }
        // What a stopped crawl archived is not pending: `pending` counts what is left.
        if (forget) this.spill.remove(batch.map((b) => b.order));
      }
    } finally {
      // The records on disk before the log rows that point to them are committed.
      for (const f of files.values()) f.close();
    }
    await this.d.store.flush();
    return documents;
  }
}

/** What keys a member's time and document: the paths a description gives. */
function signature(d: StreamDescription): string {
  return JSON.stringify([d.versionOfPath, d.timestampPath, d.deletePath, d.deleteObject]);
}
