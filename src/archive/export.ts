import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { Parser, Writer, DataFactory } from 'n3';
import type { Quad } from '@rdfjs/types';
import type { CrawlLog, CrawlLogEntry, LatestKind } from '../store/types.ts';
import { headerValue, redirectTarget } from '../util/headers.ts';
import { readRecord, type RecordReader } from './warc-reader.ts';
import { quadToNQuads, termToNQuads } from '../rdf/canonical.ts';
import { blankNodeLabels } from '../rdf/terms.ts';
import { listWarcFiles } from './warc-files.ts';
import { scanWarc } from './warc-scan.ts';
import { isImportFile, readImportIndex, type ImportedRecord } from './import-index.ts';
import { trustFactOf, trustQuads } from '../trust/record.ts';

const { quad, namedNode, literal, blankNode } = DataFactory;

import { DM } from './namespace.ts';

export { DM };
const PROV = 'http://www.w3.org/ns/prov#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
export { PROVENANCE_GRAPH } from './namespace.ts';
import { alternateOf, alternateQuads } from './alternates.ts';
import { PROVENANCE_GRAPH } from './namespace.ts';

/** Log entries read from the store at a time: export holds a page of the log, never all of it. */
const PAGE = 1000;

/**
 * Each URL's latest entry of a kind (the newest version with RDF, the newest redirect, …; see LatestKind),
 * optionally as the archive was at a time, read from the store a page at a time, in log order.
 */
export async function* latestEntries(store: CrawlLog, kind: LatestKind, at?: number): AsyncGenerator<CrawlLogEntry> {
  for (let afterId = 0; ; ) {
    const page = await store.latestEntries({ kind, at, afterId, limit: PAGE });
    yield* page;
    if (page.length < PAGE) return;
    afterId = page.at(-1)!.id!;
  }
}

/**
 * PROV-O of a redirect hop: the fetch of the URL that answered it, and where it led: for a 303 the
 * "see other" relation of a resource IRI to the document that describes it, else the redirect itself.
 */
export function redirectQuads(e: CrawlLogEntry): Quad[] {
  const target = redirectTarget(e.status, e.headers, e.url)?.url?.href;
  const g = namedNode(PROVENANCE_GRAPH);
  const out = provenanceQuads({ ...e, finalUrl: e.url });
  if (target) out.push(quad(namedNode(e.url), namedNode(`${DM}${e.status === 303 ? 'seeOther' : 'redirectsTo'}`), namedNode(target), g));
  return out;
}

/**
 * PROV-O of a representation whose graph disagreed with its document's (`crawl --variants`): `<doc>
 * dm:variantMismatch <fetch>`, and that fetch as an activity (when, status, media type, digests, graph hash,
 * the Content-Location it answered with). The document is the one its crawl-log line names (`variant of <U>`).
 */
export function variantMismatchQuads(e: CrawlLogEntry): Quad[] {
  const g = namedNode(PROVENANCE_GRAPH);
  const named = e.diagnostics?.map((d) => /variant of <([^>\s]+)>/.exec(d)?.[1]).find((u) => u !== undefined);
  const act = namedNode(`${DM}fetch/${e.id ?? e.time}`);
  // The activity only: the representation did not generate the document's version.
  const out = provenanceQuads(e).filter((q) => q.subject.equals(act));
  out.push(quad(namedNode(named ?? e.url), namedNode(`${DM}variantMismatch`), act, g));
  const location = headerValue(e.headers, 'content-location');
  let target: string | undefined;
  try {
    target = location === undefined ? undefined : new URL(location.trim(), e.finalUrl ?? e.url).href;
  } catch {
    target = undefined;
  }
  if (target) out.push(quad(act, namedNode(`${DM}contentLocation`), namedNode(target), g));
  return out;
}

/**
 * A version's quads, read from its WARC conversion record: default-graph quads placed in the document's
 * own graph, quads of a named graph (TriG, N-Quads) kept in it. `from`: the data directory, or a
 * RecordReader over it for many versions in a row.
 */
export function versionQuads(from: string | RecordReader, e: CrawlLogEntry, blankPrefix: string): Quad[] {
  const rec = typeof from === 'string'
    ? readRecord(from, e.warcFile as string, e.rdfOffset as number, e.rdfLength as number)
    : from.read(e.warcFile as string, e.rdfOffset as number, e.rdfLength as number);
  const graph = namedNode(e.finalUrl ?? e.url);
  const parsed = new Parser({ format: 'N-Quads', blankNodePrefix: blankPrefix }).parse(rec.block.toString('utf8'));
  return parsed.map((q) => (q.graph.termType === 'DefaultGraph' ? quad(q.subject, q.predicate, q.object, graph) : q));
}

/** A version's quads with its blank nodes under the archive's labels (blankNodeLabels), as queries show them. */
function withArchiveLabels(graph: string, qs: Quad[]): Quad[] {
  if (!qs.some((q) => q.subject.termType === 'BlankNode' || q.object.termType === 'BlankNode' || q.graph.termType === 'BlankNode')) return qs;
  const labels = blankNodeLabels(graph, qs);
  const label = (value: string) => blankNode(labels.get(value)!);
  return qs.map((q) => quad(
    q.subject.termType === 'BlankNode' ? label(q.subject.value) : q.subject,
    q.predicate,
    q.object.termType === 'BlankNode' ? label(q.object.value) : q.object,
    q.graph.termType === 'BlankNode' ? label(q.graph.value) : q.graph,
  ));
}

/** `G dm:inDocument D` for each named graph G of document D's version (export's provenance). */
function namedGraphQuads(qs: Quad[], document: string): Quad[] {
  const seen = new Set<string>();
  const out: Quad[] = [];
  for (const q of qs) {
    if (q.graph.termType === 'DefaultGraph' || q.graph.value === document || seen.has(q.graph.value)) continue;
    seen.add(q.graph.value);
    out.push(quad(q.graph as Quad['subject'], namedNode(`${DM}inDocument`), namedNode(document), namedNode(PROVENANCE_GRAPH)));
  }
  return out;
}

/** PROV-O description of one fetch: when, what status and media type, from which URL. */
export function provenanceQuads(e: CrawlLogEntry): Quad[] {
  const g = namedNode(PROVENANCE_GRAPH);
  const doc = namedNode(e.finalUrl ?? e.url);
  const act = namedNode(`${DM}fetch/${e.id ?? e.time}`);
  const out = [
    quad(doc, namedNode(`${PROV}wasGeneratedBy`), act, g),
    quad(doc, namedNode(`${PROV}generatedAtTime`), literal(new Date(e.time).toISOString(), namedNode(`${XSD}dateTime`)), g),
    quad(act, namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#type'), namedNode(`${PROV}Activity`), g),
    quad(act, namedNode(`${PROV}startedAtTime`), literal(new Date(e.time).toISOString(), namedNode(`${XSD}dateTime`)), g),
    quad(act, namedNode(`${PROV}used`), namedNode(e.finalUrl ?? e.url), g),
    quad(act, namedNode(`${DM}httpStatus`), literal(String(e.status), namedNode(`${XSD}integer`)), g),
  ];
  if (e.mediaType) out.push(quad(act, namedNode(`${DM}mediaType`), literal(e.mediaType), g));
  if (e.checksum) out.push(quad(act, namedNode(`${DM}payloadDigest`), literal(e.checksum), g));
  if (e.graphHash) out.push(quad(act, namedNode(`${DM}graphHash`), literal(e.graphHash), g));
  // The trust verdict of a version `crawl --trust` vetted: the same facts the query index states.
  const trust = e.rdfOffset !== undefined ? trustFactOf(e.diagnostics) : undefined;
  if (trust) out.push(...trustQuads(e.finalUrl ?? e.url, trust, PROVENANCE_GRAPH));
  const alternateOfDoc = e.rdfOffset !== undefined ? alternateOf(e.diagnostics) : undefined;
  if (alternateOfDoc) out.push(...alternateQuads(e.finalUrl ?? e.url, alternateOfDoc));
  return out;
}

/**
 * The import index of the file a version is in, a few files held at a time: an import logs its versions
 * file by file, so export holds one import's index, not every import's.
 */
class ImportedFrom {
  private readonly held = new Map<string, Map<number, ImportedRecord>>();
  constructor(private readonly dataDir: string) {}

  get(e: CrawlLogEntry): ImportedRecord | undefined {
    if (e.warcFile === undefined || e.warcOffset === undefined) return undefined;
    const file = path.normalize(e.warcFile);
    // Only import files have an index (warc/import/<file>.records.jsonl); a crawled file costs no look-up.
    if (!isImportFile(file)) return undefined;
    let byOffset = this.held.get(file);
    if (!byOffset) {
      byOffset = new Map(readImportIndex(this.dataDir, file)[1].map((r) => [r.offset, r]));
      if (this.held.size >= 4) this.held.delete(this.held.keys().next().value!);
      this.held.set(file, byOffset);
    }
    return byOffset.get(e.warcOffset);
  }
}

/**
 * Where an imported version came from: the fetch activity `dm:importedFrom` the source WARC file, with
 * the record's offset in it and its WARC-Record-ID (as the source wrote it).
 */
function importQuads(e: CrawlLogEntry, imported: ImportedFrom): Quad[] {
  const r = imported.get(e);
  if (!r) return [];
  const g = namedNode(PROVENANCE_GRAPH);
  const act = namedNode(`${DM}fetch/${e.id ?? e.time}`);
  const out = [
    quad(act, namedNode(`${DM}importedFrom`), namedNode(pathToFileURL(r.source).href), g),
    quad(act, namedNode(`${DM}sourceOffset`), literal(String(r.sourceOffset), namedNode(`${XSD}integer`)), g),
  ];
  if (r.id) out.push(quad(act, namedNode(`${DM}sourceRecord`), literal(r.id), g));
  return out;
}

function prologAtom(t: Quad['subject'] | Quad['object']): string {
  const v = t.termType === 'Literal' ? t.value : termToNQuads(t).replace(/^<|>$/g, '');
  return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

export type ExportFormat = 'nquads' | 'turtle' | 'prolog';

/** Where export writes: a promise returned means "wait before writing more" (the stream's backpressure); anything else is ignored. */
export type ExportSink = (s: string) => unknown;

/** Characters gathered before a write: one write per quad would cost a syscall (or a stream chunk) each. */
const CHUNK = 1 << 16;

/** Gathers output into chunks and hands each to the sink, waiting while the sink pushes back. */
class ChunkedOutput {
  private parts: string[] = [];
  private size = 0;
  constructor(private readonly sink: ExportSink) {}

  add(s: string): void {
    this.parts.push(s);
    this.size += s.length;
  }

  /** Writes what was gathered once it is a chunk (or always, with `all`). */
  async flush(all = false): Promise<void> {
    if (this.size === 0 || (!all && this.size < CHUNK)) return;
    const s = this.parts.join('');
    this.parts = [];
    this.size = 0;
    await this.sink(s);
  }
}

/**
 * Streams the archive out: N-Quads (a graph per document, and the named graphs of quad formats as they
 * were), one consolidated Turtle file, or seed 003's triple/3 facts. Bounded memory whatever the archive's
 * size: the log is read a page at a time, one version's quads are held at a time, and the output goes to
 * `write` in chunks, waiting whenever it returns a promise (a file or pipe that has not drained). Turtle
 * goes through N3's writer in streaming mode, which groups a subject's triples without holding the graph.
 */
export async function exportArchive(store: CrawlLog, dataDir: string, format: ExportFormat, write: ExportSink, opts: { at?: number; provenance?: boolean } = {}): Promise<{ documents: number; quads: number }> {
  let quads = 0;
  let documents = 0;
  const out = new ChunkedOutput(write);
  const turtle = format === 'turtle'
    ? new Writer({ write: (chunk: string, _enc: string, done?: () => void) => (out.add(chunk), done?.()), end: (done?: () => void) => done?.() }, { format: 'Turtle' })
    : undefined;
  const emit = (qs: Quad[]): void => {
    quads += qs.length;
    for (const q of qs) {
      if (format === 'nquads') out.add(quadToNQuads(q));
      else if (format === 'prolog') out.add(`triple(${prologAtom(q.predicate)}, ${prologAtom(q.subject)}, ${prologAtom(q.object)}).\n`);
      else turtle?.addQuad(q.subject, q.predicate, q.object);
    }
  };
  const imported = opts.provenance ? new ImportedFrom(dataDir) : undefined;
  for await (const e of latestEntries(store, 'version', opts.at)) {
    const qs = withArchiveLabels(e.finalUrl ?? e.url, versionQuads(dataDir, e, `d${documents++}_`));
    if (imported) qs.push(...namedGraphQuads(qs, e.finalUrl ?? e.url), ...provenanceQuads(e), ...importQuads(e, imported));
    emit(qs);
    await out.flush();
  }
  if (opts.provenance) {
    for await (const e of latestEntries(store, 'redirect', opts.at)) {
      emit(redirectQuads(e));
      await out.flush();
    }
    for await (const e of latestEntries(store, 'variant-mismatch', opts.at)) {
      emit(variantMismatchQuads(e));
      await out.flush();
    }
  }
  if (turtle) await new Promise<void>((resolve, reject) => turtle.end((err) => (err ? reject(err) : resolve())));
  await out.flush(true);
  return { documents, quads };
}

/**
 * The archive's WARC records as one `.warc.gz` stream, files in name order and records in file order,
 * each its own gzip member: an imported record exactly as its source held it (the same member bytes
 * when the source gzipped it per record), a crawled one as the crawler wrote it. The conversion records
 * that hold datamonitor's RDF of a version (what the other formats export) are left out, so exporting an
 * import gives back the source's records byte for byte. A damaged stretch of a file is skipped and reported.
 */
export async function exportWarc(store: CrawlLog, dataDir: string, write: (b: Buffer) => void | Promise<void>): Promise<{ files: number; records: number; problems: string[] }> {
  const { closed } = listWarcFiles(dataDir);
  let records = 0;
  const problems: string[] = [];
  for (const rel of closed) {
    // The conversion records of this file only: a file's worth of offsets, not the whole log's.
    const derived = new Set<number>();
    for (let since = 0; ; ) {
      const page = await store.log({ sinceId: since, limit: 5000, warcFile: rel, converted: true });
      for (const e of page) if (e.rdfOffset !== undefined) derived.add(e.rdfOffset);
      if (page.length < 5000) break;
      since = page.at(-1)!.id!;
    }
    for (const r of scanWarc(path.join(dataDir, rel))) {
      if ('error' in r) {
        problems.push(`${rel} at offset ${r.offset}: ${r.error}`);
        continue;
      }
      if (derived.has(r.offset)) continue;
      await write(r.member ?? zlib.gzipSync(r.raw));
      records++;
    }
  }
  return { files: closed.length, records, problems };
}
