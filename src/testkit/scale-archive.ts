import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Parser } from 'n3';
import type { Quad, Term } from '@rdfjs/types';
import { SqliteStore } from '../store/sqlite.ts';
import type { CrawlLogEntry } from '../store/types.ts';
import { WarcWriter } from '../archive/warc-writer.ts';
import { httpHeadText, sha1Digest } from '../archive/warc-record.ts';
import { termToNQuads } from '../rdf/canonical.ts';
import { hostOf } from '../frontier/normalize.ts';
import { META_FILE } from '../util/data-dir.ts';
import { linkedDataWeb } from './linked-data-web.ts';

/**
 * An archive as a crawl of the generated Linked Data Web (src/testkit/linked-data-web.ts) leaves it, written
 * straight through the real WARC writer and SQLite store instead of over HTTP: for every document the 303 of
 * its resource IRI and the 200 of its Turtle (with its N-Quads conversion record and graph hash), a second,
 * changed version of every tenth document, and a 404 for every hundredth after it (the document is gone).
 * A crawl takes about a minute per 100,000 documents; this takes a fraction of it, so scale benches and the
 * bounded-memory tests can afford archives larger than the old whole-log reads could hold.
 */
export interface ScaleArchiveOptions {
  dataDir: string;
  documents: number;
  /** Virtual hosts (default 10): a WARC file per host, as the crawler lays them out. */
  hosts?: number;
  /** Called every 5,000 documents. */
  onProgress?: (documents: number) => void;
}

export interface ScaleArchive {
  /** Log entries written (redirects, versions, 404s). */
  entries: number;
  /** Documents with a version now (gone ones left out) and their triples: what `export` writes without provenance. */
  documents: number;
  quads: number;
  /** Version URLs, in the order export writes them (that of their latest version in the log). */
  latestUrls: string[];
}

const T0 = Date.UTC(2026, 0, 1);
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** N-Quads of a document's graph with document-local blank labels and sorted lines (what the archive stores: one line per quad). */
function nquadsOf(quads: Quad[]): string {
  const labels = new Map<string, string>();
  const term = (t: Term): string => {
    if (t.termType !== 'BlankNode') return termToNQuads(t);
    let l = labels.get(t.value);
    if (l === undefined) labels.set(t.value, (l = `_:c14n${labels.size}`));
    return l;
  };
  return quads.map((q) => `${term(q.subject)} ${termToNQuads(q.predicate)} ${term(q.object)} .\n`).sort().join('');
}

export async function buildScaleArchive(o: ScaleArchiveOptions): Promise<ScaleArchive> {
  const web = linkedDataWeb({ documents: o.documents, hosts: o.hosts });
  fs.mkdirSync(o.dataDir, { recursive: true });
  const store = new SqliteStore(path.join(o.dataDir, META_FILE));
  await store.init();
  const warc = new WarcWriter(o.dataDir, { software: 'datamonitor scale-archive' });
  let entries = 0;
  let quads = 0;
  let time = T0;
  const log = async (e: Omit<CrawlLogEntry, 'durationMs' | 'cycleId'>) => {
    await store.logFetch({ ...e, durationMs: 3 }, { state: 'fetched', lastFetched: e.time, checksum: e.checksum, graphHash: e.graphHash });
    entries++;
  };
  const capture = async (url: string, status: number, headers: [string, string][], body: string, nquads?: string) => {
    const u = new URL(url);
    const t = (time += 7);
    const bytes = Buffer.from(body);
    const payloadDigest = sha1Digest(bytes);
    const archived = await warc.writeWire({
      url, time: t, requestHead: httpHeadText(`GET ${u.pathname} HTTP/1.1`, [['Host', u.host], ['Accept', 'text/turtle']]),
      responseHead: httpHeadText(`HTTP/1.1 ${status} ${status === 200 ? 'OK' : status === 303 ? 'See Other' : 'Not Found'}`, headers),
      body: bytes, truncated: false, notModified: false, payloadDigest, nquads,
    });
    return { t, payloadDigest, archived, bytes: bytes.length };
  };
  const version = async (i: number, turtle: string) => {
    const url = web.document(i);
    const parsed = new Parser({ baseIRI: url }).parse(turtle);
    const nquads = nquadsOf(parsed);
    const c = await capture(url, 200, [['Content-Type', 'text/turtle'], ['Content-Length', String(Buffer.byteLength(turtle))]], turtle, nquads);
    await log({
      url, finalUrl: url, time: c.t, status: 200, headers: [['content-type', 'text/turtle']], bytes: c.bytes, mediaType: 'text/turtle', checksum: c.payloadDigest,
      graphHash: sha256(nquads), change: 'new', reason: 'fetched', triples: parsed.length,
      warcFile: c.archived.file, warcOffset: c.archived.offset, warcLength: c.archived.length, rdfOffset: c.archived.rdfOffset, rdfLength: c.archived.rdfLength,
    });
    return parsed.length;
  };
  const triples = new Map<number, number>();
  await store.addDocuments(Array.from({ length: o.documents }, (_, i) => ({ url: web.document(i), host: hostOf(web.document(i)), depth: 1 })));
  for (let i = 0; i < o.documents; i++) {
    const id = web.resource(i);
    const c = await capture(id, 303, [['Location', web.document(i)], ['Content-Type', 'text/plain']], 'see other');
    await log({
      url: id, time: c.t, status: 303, headers: [['location', web.document(i)]], bytes: c.bytes, mediaType: 'text/plain', checksum: c.payloadDigest,
      change: 'new', reason: 'redirected', triples: 0, warcFile: c.archived.file, warcOffset: c.archived.offset, warcLength: c.archived.length,
    });
    triples.set(i, await version(i, web.turtle(i)));
    if (i % 5000 === 4999) {
      await store.flush();
      o.onProgress?.(i + 1);
    }
  }
  // A second crawl of every tenth document finds it changed; every hundredth is gone after that.
  for (let i = 0; i < o.documents; i += 10) {
    triples.set(i, await version(i, `${web.turtle(i)}<${web.resource(i)}> <http://www.w3.org/2000/01/rdf-schema#comment> "changed in the second crawl" .\n`));
  }
  for (let i = 0; i < o.documents; i += 100) {
    const c = await capture(web.document(i), 404, [['Content-Type', 'text/plain']], 'not found');
    await log({
      url: web.document(i), finalUrl: web.document(i), time: c.t, status: 404, bytes: c.bytes, mediaType: 'text/plain', checksum: c.payloadDigest,
      change: 'error', error: 'HTTP 404', reason: 'http-error', triples: 0, warcFile: c.archived.file, warcOffset: c.archived.offset, warcLength: c.archived.length,
    });
    triples.delete(i);
  }
  await warc.close();
  await store.close();
  // Export's order: by the log id of each document's latest version (first crawl, then the changed ones).
  const changed = (i: number) => i % 10 === 0;
  const latestUrls = [...triples.keys()].filter((i) => !changed(i)).concat([...triples.keys()].filter(changed)).map((i) => web.document(i));
  for (const n of triples.values()) quads += n;
  return { entries, documents: triples.size, quads, latestUrls };
}
