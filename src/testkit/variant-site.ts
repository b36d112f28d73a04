import type { Quad, Term } from '@rdfjs/types';
import { Parser, Writer } from 'n3';
import { startServer, type SeenRequest, type TestServer } from './server.ts';
import { linkedDataDocument } from './linked-data-site.ts';
import { realVocabulary } from './real-vocabulary.ts';

/**
 * A Linked Data site whose documents come in every common serialisation, as DBpedia, Wikidata and
 * most Linked Data servers offer them (`crawl --variants`, src/crawler/variants/). Document i is
 * `/doc/i`; its graph is the crawl benchmark's document shape (src/testkit/linked-data-site.ts: about 35
 * triples of a real schema.org class, a blank node, labels in two languages, links to other documents)
 * and it is served as Turtle, JSON-LD, RDF/XML and HTML+RDFa, each also at a URL of its own
 * (`/doc/i.ttl`, `.jsonld`, `.rdf`, `.html`). How `/doc/i` offers them is the document's `kind`:
 *
 * - `honest`: content negotiation on Accept (`Vary: Accept`, `Content-Location: /doc/i.ttl`, …);
 * - `linked`: Turtle only at `/doc/i`, the others advertised by `Link: <…>; rel="alternate"; type="…"`;
 * - `drops`: negotiates, but its JSON-LD lacks one triple of the graph (a disagreement to find);
 * - `ignores`: says `Vary: Accept` but sends the same Turtle bytes whatever is asked;
 * - `lies`: negotiates, but labels its RDF/XML `text/turtle`;
 * - `page`: HTML+RDFa at `/doc/i`, its Turtle and JSON-LD named by `<link rel="alternate" type="…">`;
 * - `plain`: the same without RDFa (a page for people), its data only in the alternates.
 *
 * Every request is recorded with its time (politeness is measured where the server sees it).
 */
export type VariantKind = 'honest' | 'linked' | 'drops' | 'ignores' | 'lies' | 'page' | 'plain';

export interface VariantSiteOptions {
  documents: number;
  /** The kind of document i (default: honest). */
  kind?: (i: number) => VariantKind;
  /** Links from each document to others (default 4). */
  linksPerDocument?: number;
}

export interface VariantSite extends TestServer {
  /** Document 0's URL: a crawl from it reaches every document. */
  seed: string;
  documentUrl(i: number): string;
  /** The requests for document i's URLs (its own and its serialisations'), in order. */
  requestsFor(i: number): SeenRequest[];
  /** The triple the `drops` kind leaves out of its JSON-LD, as N-Triples. */
  dropped(i: number): string;
}

const FORMATS = {
  ttl: 'text/turtle',
  jsonld: 'application/ld+json',
  rdf: 'application/rdf+xml',
  html: 'text/html',
} as const;
type Ext = keyof typeof FORMATS;

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Expanded JSON-LD: one node object per subject, blank nodes as `_:` ids. */
function jsonLd(quads: readonly Quad[]): string {
  const nodes = new Map<string, Record<string, unknown[]>>();
  const id = (t: Term) => (t.termType === 'BlankNode' ? `_:${t.value}` : t.value);
  for (const q of quads) {
    const s = id(q.subject);
    if (!nodes.has(s)) nodes.set(s, {});
    const node = nodes.get(s)!;
    const p = q.predicate.value === `${RDF}type` ? '@type' : q.predicate.value;
    const o = q.object;
    const value = p === '@type' ? id(o)
      : o.termType === 'Literal'
        ? o.language ? { '@value': o.value, '@language': o.language } : o.datatype.value === XSD_STRING ? { '@value': o.value } : { '@value': o.value, '@type': o.datatype.value }
        : { '@id': id(o) };
    (node[p] ??= []).push(value);
  }
  return JSON.stringify([...nodes].map(([s, props]) => ({ '@id': s, ...props })), null, 1);
}

/** RDF/XML: an rdf:Description per subject, each property element declaring its own namespace. */
function rdfXml(quads: readonly Quad[]): string {
  const bySubject = new Map<string, Quad[]>();
  for (const q of quads) {
    const key = `${q.subject.termType}:${q.subject.value}`;
    if (!bySubject.has(key)) bySubject.set(key, []);
    bySubject.get(key)!.push(q);
  }
  const out = ['<?xml version="1.0" encoding="utf-8"?>', `<rdf:RDF xmlns:rdf="${RDF}">`];
  for (const qs of bySubject.values()) {
    const s = qs[0]!.subject;
    out.push(s.termType === 'BlankNode' ? `  <rdf:Description rdf:nodeID="${s.value}">` : `  <rdf:Description rdf:about="${esc(s.value)}">`);
    for (const q of qs) {
      const p = q.predicate.value;
      const cut = Math.max(p.lastIndexOf('#'), p.lastIndexOf('/')) + 1;
      const open = `<p:${p.slice(cut)} xmlns:p="${esc(p.slice(0, cut))}"`;
      const o = q.object;
      if (o.termType === 'NamedNode') out.push(`    ${open} rdf:resource="${esc(o.value)}"/>`);
      else if (o.termType === 'BlankNode') out.push(`    ${open} rdf:nodeID="${o.value}"/>`);
      else if (o.termType === 'Literal') {
        const attr = o.language ? ` xml:lang="${o.language}"` : o.datatype.value === XSD_STRING ? '' : ` rdf:datatype="${esc(o.datatype.value)}"`;
        out.push(`    ${open}${attr}>${esc(o.value)}</p:${p.slice(cut)}>`);
      }
    }
    out.push('  </rdf:Description>');
  }
  out.push('</rdf:RDF>');
  return out.join('\n') + '\n';
}

/** HTML+RDFa 1.1: a `div about` per subject, a `span property` per triple; a title and links for people. */
function htmlRdfa(quads: readonly Quad[], title: string, links: string[], alternates: string[] = []): string {
  const subjects = new Map<string, Quad[]>();
  for (const q of quads) {
    const key = q.subject.termType === 'BlankNode' ? `_:${q.subject.value}` : q.subject.value;
    if (!subjects.has(key)) subjects.set(key, []);
    subjects.get(key)!.push(q);
  }
  const out = ['<!DOCTYPE html>', '<html><head><meta charset="utf-8"><title>' + esc(title) + '</title>' + alternates.join('') + '</head><body>', `<h1>${esc(title)}</h1>`];
  for (const [s, qs] of subjects) {
    out.push(`<div about="${esc(s)}">`);
    for (const q of qs) {
      const o = q.object;
      const p = esc(q.predicate.value);
      if (o.termType === 'Literal') {
        const lang = o.language ? ` lang="${o.language}"` : '';
        const dt = o.language || o.datatype.value === XSD_STRING ? '' : ` datatype="${esc(o.datatype.value)}"`;
        out.push(`  <span property="${p}"${lang}${dt} content="${esc(o.value)}">${esc(o.value)}</span>`);
      } else {
        out.push(`  <span property="${p}" resource="${esc(o.termType === 'BlankNode' ? `_:${o.value}` : o.value)}"></span>`);
      }
    }
    out.push('</div>');
  }
  out.push('<ul>', ...links.map((l) => `<li><a href="${esc(l)}">${esc(l)}</a></li>`), '</ul></body></html>');
  return out.join('\n') + '\n';
}

export async function startVariantSite(o: VariantSiteOptions): Promise<VariantSite> {
  const v = realVocabulary();
  const kind = o.kind ?? (() => 'honest' as const);
  let origin = '';
  const doc = (j: number) => `${origin}/doc/${j}`;
  const cache = new Map<number, { quads: Quad[]; bodies: Record<Ext, string>; dropped: string }>();
  const representations = (i: number) => {
    let c = cache.get(i);
    if (c) return c;
    const turtle = linkedDataDocument(i, o.documents, doc, v, o.linksPerDocument ?? 4);
    const quads = new Parser({ baseIRI: doc(i) }).parse(turtle);
    // The drops kind leaves out a literal of the resource (not its type, not a link: a quiet loss).
    const lost = quads.findIndex((q) => q.object.termType === 'Literal' && q.subject.termType === 'NamedNode' && q.subject.value.endsWith('#it'));
    const dropped = new Writer({ format: 'N-Triples' }).quadsToString([quads[lost]!]).trim();
    const links = [...new Set(quads.filter((q) => q.object.termType === 'NamedNode' && q.object.value.startsWith(`${origin}/doc/`)).map((q) => q.object.value.replace(/#.*/, '')))];
    const jsonQuads = kind(i) === 'drops' ? quads.filter((_, k) => k !== lost) : quads;
    const alternates = (['ttl', 'jsonld'] as Ext[]).map((e) => `<link rel="alternate" type="${FORMATS[e]}" href="/doc/${i}.${e}">`);
    const html = kind(i) === 'page' ? htmlRdfa(quads, `Document ${i}`, links, alternates)
      : kind(i) === 'plain' ? htmlRdfa([], `Document ${i}`, links, alternates)
      : htmlRdfa(quads, `Document ${i}`, links);
    c = { quads, dropped, bodies: { ttl: turtle, jsonld: jsonLd(jsonQuads), rdf: rdfXml(quads), html } };
    cache.set(i, c);
    return c;
  };
  /** The format an Accept header prefers among the four (q-values honoured; Turtle by default). */
  const negotiate = (accept: string | undefined): Ext => {
    let best: Ext = 'ttl';
    let bestQ = -1;
    for (const part of (accept ?? '').split(',')) {
      const [type = '', ...params] = part.trim().split(';');
      const q = Number(params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find(Boolean) ?? 1);
      const ext = (Object.keys(FORMATS) as Ext[]).find((e) => FORMATS[e] === type.trim().toLowerCase());
      if (ext && q > bestQ) [best, bestQ] = [ext, q];
    }
    return best;
  };
  const server = await startServer((req, res, url) => {
    if (url.pathname === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('User-agent: *\nDisallow: /private/\n');
    }
    const m = /^\/doc\/(\d+)(?:\.(ttl|jsonld|rdf|html))?$/.exec(url.pathname);
    const i = m ? Number(m[1]) : -1;
    if (!m || i >= o.documents) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('not found');
    }
    const r = representations(i);
    const k = kind(i);
    const fixed = m[2] as Ext | undefined;
    if (fixed) {
      res.writeHead(200, { 'content-type': `${FORMATS[fixed]}; charset=utf-8` });
      return res.end(r.bodies[fixed]);
    }
    if (k === 'linked') {
      const alternates = (['jsonld', 'rdf', 'html'] as Ext[]).map((e) => `</doc/${i}.${e}>; rel="alternate"; type="${FORMATS[e]}"`);
      res.writeHead(200, { 'content-type': 'text/turtle; charset=utf-8', link: alternates.join(', ') });
      return res.end(r.bodies.ttl);
    }
    if (k === 'page' || k === 'plain') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(r.bodies.html);
    }
    if (k === 'ignores') {
      res.writeHead(200, { 'content-type': 'text/turtle; charset=utf-8', vary: 'Accept' });
      return res.end(r.bodies.ttl);
    }
    const ext = negotiate(req.headers.accept);
    const type = k === 'lies' && ext === 'rdf' ? 'text/turtle' : FORMATS[ext];
    res.writeHead(200, { 'content-type': `${type}; charset=utf-8`, vary: 'Accept', 'content-location': `/doc/${i}.${ext}` });
    res.end(r.bodies[ext]);
  });
  origin = server.url;
  return {
    ...server,
    seed: doc(0),
    documentUrl: doc,
    requestsFor: (i) => server.requests.filter((q) => new RegExp(`^/doc/${i}(\\.[a-z]+)?$`).test(q.path)),
    dropped: (i) => representations(i).dropped,
  };
}
