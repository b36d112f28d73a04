import type { Quad } from '@rdfjs/types';
import { DataFactory } from 'rdf-data-factory';
import type { RdfaProfile } from 'rdfa-streaming-parser';
import type { Diagnostic, ExtractContext, ExtractInput, ExtractResult, Extractor } from '../types.ts';
import { decodeDocument } from './charset.ts';
import { essenceOf, parseContentType } from '../../util/content-type.ts';
import { parseLinkHeader } from '../../util/link-format.ts';
import { scanDocument } from './scanner.ts';
import { parseRdfXmlIsland, parseScriptIsland, scriptFormat, standaloneRdfXml } from './fragments.ts';
import { htmlTriples, robotsDirectives, xhvKey } from './html-triples.ts';
import { XHV } from './vocab.ts';
import { markNofollow } from '../links.ts';
import { pageRequisites } from './requisites.ts';

/** How a media type is read: the RDFa host language profile and whether the markup is XML. */
interface Host {
  profile: RdfaProfile;
  xmlMode: boolean;
}

const HOSTS: Record<string, Host> = {
  'text/html': { profile: 'html', xmlMode: false },
  // XHTML is read with the (forgiving) HTML tokenizer plus self-closing tags, as rdfa-streaming-parser does.
  'application/xhtml+xml': { profile: 'xhtml', xmlMode: false },
  'image/svg+xml': { profile: 'xml', xmlMode: true },
  'application/xml': { profile: 'xml', xmlMode: true },
  'text/xml': { profile: 'xml', xmlMode: true },
};

/** The internal DTD subset of an XML document, so that an rdf:RDF root keeps its entities (&owl; ...). */
function xmlDoctype(text: string): string | undefined {
  const match = /<!DOCTYPE\s[^[>]*(?:\[[\s\S]*?\]\s*)?>/i.exec(text.slice(0, 256 * 1024));
  return match?.[0].includes('[') ? match[0] : undefined;
}

const RDF_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';

/** rdfa-streaming-parser turns lang="" into a langString with an empty tag (invalid RDF); it means "no language". */
function withoutEmptyLanguage(quad: Quad, factory: DataFactory): Quad {
  const o = quad.object;
  if (o.termType !== 'Literal' || o.language !== '' || o.datatype.value !== RDF_LANG_STRING) return quad;
  return factory.quad(quad.subject, quad.predicate, factory.literal(o.value), quad.graph);
}

export interface MarkupOptions {
  /** The page itself as triples (title, META, LINK, anchors under dm:/dcterms:/xhv:). Default true. */
  pageTriples?: boolean;
}

/**
 * Extracts everything from an HTML/XHTML/SVG/XML document. The conformance suite turns pageTriples off:
 * the RDFa test suite's negative tests ask that a page yields no triples at all beyond its RDFa.
 */
export async function extractMarkup(input: ExtractInput, ctx: ExtractContext, options: MarkupOptions = {}): Promise<ExtractResult> {
  const diagnostics: Diagnostic[] = [];
  if (ctx.signal?.aborted) return { quads: [], links: [], diagnostics: [{ level: 'error', message: 'extraction aborted' }] };
  const host = HOSTS[essenceOf(input.mediaType)] ?? HOSTS['text/html'];
  const decoded = decodeDocument(input.body, {
    headerCharset: input.charset ?? parseContentType(input.headers['content-type']).charset,
    xml: host.xmlMode || host.profile === 'xhtml',
  });
  for (const message of decoded.warnings) diagnostics.push({ level: 'warning', message });
  const text = decoded.text;

  const factory = new DataFactory();
  const quads: Quad[] = [];
  let overLimit = false;
  const rdfaXhvKeys = new Set<string>();
  const keep = (quad: Quad): boolean => {
    if (quads.length >= ctx.maxQuads) {
      overLimit = true;
      return false;
    }
    quads.push(quad);
    return true;
  };

  const scan = scanDocument(text, {
    url: input.url,
    xmlMode: host.xmlMode,
    rdfaProfile: host.profile,
    microdata: !host.xmlMode && text.includes('itemscope'),
    signal: ctx.signal,
    requisites: ctx.requisites,
    sink: (raw) => {
      const quad = withoutEmptyLanguage(raw, factory);
      if (quad.predicate.value.startsWith(XHV)) rdfaXhvKeys.add(xhvKey(quad.subject.value, quad.predicate.value, quad.object.value));
      return keep(quad);
    },
  });
  diagnostics.push(...scan.diagnostics);

  const doctype = host.xmlMode ? xmlDoctype(text) : undefined;
  let island = 0;
  for (const found of scan.islands) {
    if (overLimit || ctx.signal?.aborted) break;
    const xml = standaloneRdfXml(found.xml, found.namespaces, found.lang, diagnostics);
    const result = parseRdfXmlIsland(doctype ? `${doctype}\n${xml}` : xml, found.base, ++island, ctx, ctx.maxQuads - quads.length + 1);
    diagnostics.push(...result.diagnostics);
    for (const quad of result.quads) if (!keep(quad)) break;
  }
  for (const script of scan.scripts) {
    const format = scriptFormat(script.type);
    if (!format || overLimit || ctx.signal?.aborted) continue;
    const result = await parseScriptIsland(script.text, format, script.base, ++island, ctx, ctx.maxQuads - quads.length + 1);
    diagnostics.push(...result.diagnostics);
    for (const quad of result.quads) if (!keep(quad)) break;
  }

  const html = htmlTriples({ docUrl: input.url, scan, headerLinks: parseLinkHeader(input.headers.link), rdfaXhvKeys, factory, quads: options.pageTriples !== false });
  const pageQuadsFrom = quads.length;
  if (options.pageTriples !== false) for (const quad of html.quads) if (!keep(quad)) break;
  if (overLimit) diagnostics.push({ level: 'warning', message: `stopped after ${ctx.maxQuads} quads (maxQuads); the rest of the document was not kept` });

  const robots = robotsDirectives(scan);
  if (robots.noindex) diagnostics.push({ level: 'warning', message: 'META robots noindex: no triples kept' });
  if (robots.nofollow) diagnostics.push({ level: 'warning', message: 'META robots nofollow: no links followed' });
  const result: ExtractResult = {
    quads: robots.noindex ? [] : quads,
    // Kept and marked, not dropped: the crawl records why it did not follow them.
    links: robots.nofollow ? html.links.map(markNofollow) : html.links,
    diagnostics,
    robots,
    pageQuadsFrom,
    nofollowTargets: html.nofollowTargets,
    // Not links: a page's own parts, fetched only with --page-requisites and whatever META robots nofollow says
    // (a browser showing the page loads them too).
    ...(ctx.requisites ? { requisites: pageRequisites(scan) } : {}),
  };
  Object.defineProperty(result, 'text', { enumerable: true, get: () => scan.text });
  if (scan.title) result.title = scan.title;
  return result;
}

/** HTML, XHTML and SVG: RDFa, microdata, JSON-LD/Turtle data blocks, embedded RDF/XML, the page as triples, links. */
export const htmlExtractor: Extractor = {
  name: 'html',
  mediaTypes: ['text/html', 'application/xhtml+xml', 'image/svg+xml'],
  extract: (input, ctx) => extractMarkup(input, ctx),
};

/** Generic XML: RDFa in XML, rdf:RDF embedded anywhere (or as the root) with the namespaces in scope. */
export const xmlEmbeddedExtractor: Extractor = {
  name: 'xml-embedded',
  mediaTypes: ['application/xml', 'text/xml'],
  extract: (input, ctx) => extractMarkup(input, ctx),
};

export { decodeDocument } from './charset.ts';
export { DM } from './vocab.ts';
