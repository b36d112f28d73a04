import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { canonicalize } from '../../rdf/canonical.ts';
import { hostOf, normalizeUrl } from '../../frontier/normalize.ts';
import type { CrawlLog, DocumentStore } from '../../store/types.ts';
import type { CrawlOptions } from '../options.ts';
import { AS_DELETE, RDF_TYPE, type PageMember, type StreamDescription } from './page.ts';
import type { MemberSink, PageRecord } from './member-file.ts';

const { quad, defaultGraph } = N3.DataFactory;

/** The paths a stream without its own description is read with: those of most published streams (and of `serve`'s). */
export const FALLBACK_PATHS = {
  versionOfPath: 'http://purl.org/dc/terms/isVersionOf',
  timestampPath: 'http://www.w3.org/ns/prov#generatedAtTime',
} as const;

/** A member read as a version of a document: the document, the member's time, and its graph (none: a deletion). */
export interface MemberVersion {
  id: string;
  document: string;
  time: number;
  deleted: boolean;
  quads: Quad[];
  page: PageRecord;
}

/**
 * A member as a version of the document its versionOfPath names, at the time its timestampPath gives, or why
 * it cannot be one. Its graph: the member's named graph when it has one (members as `serve` and most
 * LDES-in-LDP servers publish them); else the member's own description with the member's IRI replaced by the
 * document's, what ldes-client's version materialisation (`materialize`) and the VSDS LDES server give a
 * consumer of members in the default graph. The versionOfPath, timestampPath and deletion triples are the
 * stream's bookkeeping, not the document's data: kept, every member would differ from the one before by its
 * time, and no member could be found to be the same graph again.
 */
export function memberVersion(m: PageMember, d: Required<Pick<StreamDescription, 'versionOfPath' | 'timestampPath'>> & StreamDescription, page: PageRecord): MemberVersion | string {
  const own = m.description.filter((q) => q.subject.value === m.id && q.subject.termType === 'NamedNode');
  const of = own.find((q) => q.predicate.value === d.versionOfPath && q.object.termType === 'NamedNode')?.object.value;
  if (!of) return `member ${m.id} has no <${d.versionOfPath}> IRI (the stream's versionOfPath): not a version of any document`;
  const document = normalizeUrl(of);
  if (!document) return `member ${m.id} is a version of ${of}, not an http(s) IRI: the archive keeps documents by URL`;
  const stamp = own.find((q) => q.predicate.value === d.timestampPath && q.object.termType === 'Literal')?.object.value;
  const time = stamp === undefined ? Number.NaN : Date.parse(stamp);
  if (!Number.isFinite(time)) return `member ${m.id} has no <${d.timestampPath}> time (the stream's timestampPath)${stamp === undefined ? '' : `: "${stamp}" is not a date-time`}`;
  const deletePath = d.deletePath ?? RDF_TYPE;
  const deleteObject = d.deleteObject ?? AS_DELETE;
  const bookkeeping = (q: Quad) => q.subject.value === m.id && (q.predicate.value === d.versionOfPath || q.predicate.value === d.timestampPath || (q.predicate.value === deletePath && q.object.value === deleteObject));
  const deleted = own.some((q) => q.predicate.value === deletePath && q.object.value === deleteObject);
  let quads: Quad[] = [];
  if (!deleted) {
    // Blank nodes stay blank: the archive names them per version (skolemised), as it does a fetched document's.
    quads = m.graph.length > 0
      ? m.graph.map((q) => quad(q.subject, q.predicate, q.object, defaultGraph()))
      : m.description.filter((q) => !bookkeeping(q)).map((q) => (q.subject.value === m.id && q.subject.termType === 'NamedNode' ? quad(N3.DataFactory.namedNode(of), q.predicate, q.object, defaultGraph()) : q));
  }
  return { id: m.id, document, time, deleted, quads, page };
}

export type MemberFate = 'new' | 'changed' | 'unchanged' | 'deleted' | 'not-newer';

/** The crawl-log line that says where a version came from: the member and the page it was read on. */
export function memberLine(v: MemberVersion): string {
  return `info: LDES member ${v.id}, read on ${v.page.url}${v.page.recordId ? ` (WARC record ${v.page.recordId})` : ''}`;
}

/**
 * Archives a member as a capture of its document, through the archive's write path: its graph compared with
 * the document's last version by canonical hash (the same graph again is an `unchanged` row and no version),
 * a changed graph written as a WARC conversion record (a deletion as a metadata record, for a rebuild), and a crawl-log row dated with the member's time, from
 * which the version index is caught up (src/versions/catch-up.ts) as from a fetch's. A deletion is logged as
 * a 410 (the stream says the document is gone), which the index reads as a deletion, as it reads a fetched 410.
 * A member not newer than the document's last capture is not archived: the archive keeps a document's versions
 * in time order (an earlier crawl or an earlier read of the stream has it, or has something later).
 */
export async function archiveMember(store: DocumentStore & CrawlLog, file: MemberSink, v: MemberVersion, o: { cycleId?: number; onVersion?: CrawlOptions['onVersion'] } = {}): Promise<MemberFate> {
  const { cycleId } = o;
  const prev = await store.getDocument(v.document);
  if (prev?.lastFetched !== undefined && prev.lastFetched >= v.time) return 'not-newer';
  if (!prev) await store.addDocuments([{ url: v.document, host: hostOf(v.document), depth: 0 }]);
  const row = { url: v.document, finalUrl: v.document, time: v.time, durationMs: 0, diagnostics: [memberLine(v)], cycleId };
  // The document's bytes were not fetched: a later fetch compares its graph, not its bytes, with this version.
  const patch = { state: 'fetched' as const, lastFetched: v.time, checksum: undefined, etag: undefined, lastModified: undefined };
  if (v.deleted) {
    const had = prev?.graphHash !== undefined;
    if (had) file.writeDeletion(v.document, v.time, v.id, v.page);
    await store.logFetch({ ...row, status: 410, bytes: 0, change: had ? 'changed' : 'unchanged', reason: 'ldes-deleted', triples: 0 }, { ...patch, graphHash: undefined });
    if (had) await o.onVersion?.(v.document, v.time, []);
    return had ? 'deleted' : 'unchanged';
  }
  const canon = await canonicalize(v.quads);
  const base = { ...row, status: 200, mediaType: 'application/n-quads', bytes: Buffer.byteLength(canon.nquads), graphHash: canon.hash, triples: v.quads.length };
  if (prev?.graphHash === canon.hash) {
    await store.logFetch({ ...base, change: 'unchanged', reason: 'unchanged' }, patch);
    return 'unchanged';
  }
  const at = file.write(v.document, v.time, canon.nquads, v.id, v.page);
  // A document captured before (a deletion included) changes; one only known, or never heard of, is new.
  const change = prev?.lastFetched !== undefined ? 'changed' : 'new';
  await store.logFetch({ ...base, change, reason: 'fetched', warcFile: file.rel, rdfOffset: at.offset, rdfLength: at.length }, { ...patch, graphHash: canon.hash });
  await o.onVersion?.(v.document, v.time, v.quads, canon.nquads);
  return change;
}
