import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { Parser, Writer, DataFactory } from 'n3';
import type { Quad } from '@rdfjs/types';
import type { CrawlLog, CrawlLogEntry } from '../store/types.ts';
import { headerValue } from '../util/headers.ts';
import { readRecord, type RecordReader } from './warc-reader.ts';
import { quadToNQuads, termToNQuads } from './canonical.ts';
import { listWarcFiles } from './warc-files.ts';
import { scanWarc } from './warc-scan.ts';
import { readImportIndexes, type ImportedRecord } from './import-index.ts';

const { quad, namedNode, literal } = DataFactory;

export const DM = 'https://w3id.org/datamonitor/ns#';
const PROV = 'http://www.w3.org/ns/prov#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
export const PROVENANCE_GRAPH = `${DM}provenance`;

/** The newest version (with RDF) of every archived document, optionally as it was at a time. */
export async function latestVersions(store: CrawlLog, at?: number): Promise<CrawlLogEntry[]> {
  const latest = new Map<string, CrawlLogEntry>();
  for (const e of await store.log()) {
    if (at !== undefined && e.time > at) continue;
    if (e.rdfOffset !== undefined) latest.set(e.url, e);
    else if (e.status === 404 || e.status === 410) latest.delete(e.url);
  }
  return [...latest.values()];
}

/** The newest archived redirect of every URL that answered with one (optionally as it was at a time). */
export async function latestRedirects(store: CrawlLog, at?: number): Promise<CrawlLogEntry[]> {
  const latest = new Map<string, CrawlLogEntry>();
  for (const e of await store.log()) {
    if (at !== undefined && e.time > at) continue;
    if (e.warcFile !== undefined && e.status >= 300 && e.status < 400 && e.status !== 304) latest.set(e.url, e);
    else if (e.warcFile !== undefined) latest.delete(e.url);
  }
  return [...latest.values()];
}

/**
 * PROV-O of a redirect hop: the fetch of the URL that answered it, and where it led: for a 303 the
 * "see other" relation of a resource IRI to the document that describes it, else the redirect itself.
 */
export function redirectQuads(e: CrawlLogEntry): Quad[] {
  const location = headerValue(e.headers, 'location');
  let target: string | undefined;
  try {
    target = location === undefined ? undefined : new URL(location.trim(), e.url).href;
  } catch {
    target = undefined;
  }
  const g = namedNode(PROVENANCE_GRAPH);
  const out = provenanceQuads({ ...e, finalUrl: e.url });
  if (target) out.push(quad(namedNode(e.url), namedNode(`${DM}${e.status === 303 ? 'seeOther' : 'redirectsTo'}`), namedNode(target), g));
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
  return out;
}

/** The import index entries of the archive, by where their copy is (file and offset). */
function importedFrom(dataDir: string): Map<string, ImportedRecord> {
  const out = new Map<string, ImportedRecord>();
  for (const [, records] of readImportIndexes(dataDir)) for (const r of records) out.set(`${path.normalize(r.file)}\0${r.offset}`, r);
  return out;
}

/**
 * Where an imported version came from: the fetch activity `dm:importedFrom` the source WARC file, with
 * the record's offset in it and its WARC-Record-ID (as the source wrote it).
 */
function importQuads(e: CrawlLogEntry, imported: Map<string, ImportedRecord>): Quad[] {
  const r = e.warcFile === undefined ? undefined : imported.get(`${path.normalize(e.warcFile)}\0${e.warcOffset}`);
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

/** Streams the archive out: N-Quads (a graph per document, and the named graphs of quad formats as they were), one consolidated Turtle file, or seed 003's triple/3 facts. */
export async function exportArchive(store: CrawlLog, dataDir: string, format: ExportFormat, write: (s: string) => void, opts: { at?: number; provenance?: boolean } = {}): Promise<{ documents: number; quads: number }> {
  const versions = await latestVersions(store, opts.at);
  let quads = 0;
  const turtle = format === 'turtle' ? new Writer({ format: 'Turtle' }) : undefined;
  const emit = (qs: Quad[]): void => {
    quads += qs.length;
    for (const q of qs) {
      if (format === 'nquads') write(quadToNQuads(q));
      else if (format === 'prolog') write(`triple(${prologAtom(q.predicate)}, ${prologAtom(q.subject)}, ${prologAtom(q.object)}).\n`);
      else turtle?.addQuad(q.subject, q.predicate, q.object);
    }
  };
  const imported = opts.provenance ? importedFrom(dataDir) : undefined;
  versions.forEach((e, i) => {
    const qs = versionQuads(dataDir, e, `d${i}_`);
    if (opts.provenance) qs.push(...namedGraphQuads(qs, e.finalUrl ?? e.url), ...provenanceQuads(e), ...importQuads(e, imported!));
    emit(qs);
  });
  if (opts.provenance) {
    for (const e of await latestRedirects(store, opts.at)) emit(redirectQuads(e));
  }
  if (turtle) await new Promise<void>((resolve, reject) => turtle.end((err, out) => (err ? reject(err) : (write(out), resolve()))));
  return { documents: versions.length, quads };
}

/**
 * The archive's WARC records as one `.warc.gz` stream, files in name order and records in file order,
 * each its own gzip member: an imported record exactly as its source held it (the same member bytes
 * when the source gzipped it per record), a crawled one as the crawler wrote it. The conversion records
 * that hold datamonitor's RDF of a version (what the other formats export) are left out, so exporting an
 * import gives back the source's records byte for byte. A damaged stretch of a file is skipped and reported.
 */
export async function exportWarc(store: CrawlLog, dataDir: string, write: (b: Buffer) => void | Promise<void>): Promise<{ files: number; records: number; problems: string[] }> {
  const derived = new Set<string>();
  for (let since = 0; ; ) {
    const page = await store.log({ sinceId: since, limit: 5000 });
    for (const e of page) if (e.warcFile !== undefined && e.rdfOffset !== undefined) derived.add(`${path.normalize(e.warcFile)}\0${e.rdfOffset}`);
    if (page.length < 5000) break;
    since = page.at(-1)!.id!;
  }
  const { closed } = listWarcFiles(dataDir);
  let records = 0;
  const problems: string[] = [];
  for (const rel of closed) {
    for (const r of scanWarc(path.join(dataDir, rel))) {
      if ('error' in r) {
        problems.push(`${rel} at offset ${r.offset}: ${r.error}`);
        continue;
      }
      if (derived.has(`${rel}\0${r.offset}`)) continue;
      await write(r.member ?? zlib.gzipSync(r.raw));
      records++;
    }
  }
  return { files: closed.length, records, problems };
}
