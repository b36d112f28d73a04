import { jsonLdExtractor } from './jsonld.ts';
import { notation3Extractor, nquadsExtractor, ntriplesExtractor, trigExtractor, turtleExtractor } from './n3.ts';
import { rdfXmlExtractor } from './rdfxml.ts';
import { sniffFormat, type SniffedFormat } from './sniff.ts';
import { markNofollow } from './links.ts';
import { xRobotsTag } from './robots.ts';
import type { ExtractContext, ExtractInput, ExtractResult, Extractor } from './types.ts';
import { htmlExtractor, xmlEmbeddedExtractor } from './html/index.ts';
import { essenceOf } from '../util/content-type.ts';

/** Types that say nothing about the format: the body decides. */
const GENERIC_MEDIA_TYPES = new Set([
  '', 'text/plain', 'application/octet-stream', 'binary/octet-stream', 'application/unknown',
  'application/x-unknown', 'unknown/unknown', 'application/download', 'application/force-download',
]);
/** Generic XML: RDF/XML if the root says so, else the embedded-XML extractor (if registered). */
const GENERIC_XML_TYPES = new Set(['application/xml', 'text/xml']);
const GENERIC_JSON_TYPES = new Set(['application/json', 'text/json']);
/** Served by the HTML engineer's extractors (src/extract/html/); listed so sniffing can route to them. */
export const HTML_MEDIA_TYPES = ['text/html', 'application/xhtml+xml', 'image/svg+xml'] as const;

/** The media type each sniffed format is parsed as. Turtle goes to TriG, its superset. */
const SNIFFED_MEDIA_TYPE: Record<SniffedFormat, string> = {
  rdfxml: 'application/rdf+xml',
  xml: 'application/xml',
  html: 'text/html',
  json: 'application/ld+json',
  turtle: 'application/trig',
  nquads: 'application/n-quads',
};

/** Which sniffed family a registered extractor belongs to, to tell a mismatched type. */
const FAMILY: Record<string, 'rdf-text' | 'markup' | 'json'> = {
  turtle: 'rdf-text', trig: 'rdf-text', 'n-triples': 'rdf-text', 'n-quads': 'rdf-text', n3: 'rdf-text',
  'rdf-xml': 'markup', 'json-ld': 'json',
};
const SNIFFED_FAMILY: Record<SniffedFormat, 'rdf-text' | 'markup' | 'json'> = {
  rdfxml: 'markup', xml: 'markup', html: 'markup', json: 'json', turtle: 'rdf-text', nquads: 'rdf-text',
};

function familyOf(essence: string, extractor: Extractor | undefined): 'rdf-text' | 'markup' | 'json' | undefined {
  if (GENERIC_XML_TYPES.has(essence) || (HTML_MEDIA_TYPES as readonly string[]).includes(essence)) return 'markup';
  return extractor ? FAMILY[extractor.name] : undefined;
}

const byMediaType = new Map<string, Extractor>();
/** The XML-embedded extractor (SVG/XML with RDFa or embedded RDF) registers under this key. */
const EMBEDDED_XML_KEY = 'application/xml';
let embeddedXmlExtractor: Extractor | undefined;

/**
 * Registers an extractor for its media types (a later registration for a type replaces the
 * earlier one).
 */
export function registerExtractor(extractor: Extractor): void {
  for (const type of extractor.mediaTypes) {
    if (type === EMBEDDED_XML_KEY || type === 'text/xml') embeddedXmlExtractor = extractor;
    else byMediaType.set(type.toLowerCase(), extractor);
  }
}

for (const extractor of [turtleExtractor, ntriplesExtractor, nquadsExtractor, trigExtractor, notation3Extractor, rdfXmlExtractor, jsonLdExtractor]) {
  registerExtractor(extractor);
}

// The HTML/XHTML/SVG and embedded-XML extractors are imported statically, not loaded on demand:
// a crawl must never run without HTML, RDFa and microdata extraction because an import failed
// quietly. A broken module now fails the import of this registry, which no crawl can miss.
registerExtractor(htmlExtractor);
registerExtractor(xmlEmbeddedExtractor);

/** The extractor registered for a media type (parameters ignored), if any. */
export function extractorFor(mediaType: string): Extractor | undefined {
  const essence = essenceOf(mediaType);
  if (GENERIC_XML_TYPES.has(essence)) return embeddedXmlExtractor;
  if (GENERIC_JSON_TYPES.has(essence) || (essence.endsWith('+json') && !byMediaType.has(essence))) return jsonLdExtractor;
  return byMediaType.get(essence);
}

/** Media types worth fetching (for the fetcher's --mime filter / Accept header). */
export function acceptedMediaTypes(): string[] {
  const types = new Set(byMediaType.keys());
  for (const type of [...GENERIC_XML_TYPES, ...GENERIC_JSON_TYPES]) types.add(type);
  return [...types].sort();
}

/**
 * The extractor for a document and the media type it is parsed as: the declared type unless it
 * is generic (then the body decides) or the body plainly contradicts it (a Turtle type on an
 * `<?xml` body). Unregistered, non-generic types get no extractor.
 */
export function chooseExtractor(input: Pick<ExtractInput, 'mediaType' | 'body'>): { extractor: Extractor; mediaType: string; sniffed: boolean } | undefined {
  const declared = essenceOf(input.mediaType);
  const generic = GENERIC_MEDIA_TYPES.has(declared);
  const sniffed = sniffFormat(input.body);
  const extractor = generic ? undefined : extractorFor(declared);
  const declaredFamily = familyOf(declared, extractor);

  if (GENERIC_XML_TYPES.has(declared) && sniffed?.format === 'rdfxml') {
    return { extractor: rdfXmlExtractor, mediaType: 'application/rdf+xml', sniffed: true };
  }
  const contradicted = sniffed?.strong && declaredFamily !== undefined && declaredFamily !== SNIFFED_FAMILY[sniffed.format];
  if (sniffed && (contradicted || generic)) {
    const mediaType = SNIFFED_MEDIA_TYPE[sniffed.format];
    const chosen = extractorFor(mediaType);
    if (chosen) return { extractor: chosen, mediaType, sniffed: true };
  }
  return extractor ? { extractor, mediaType: declared, sniffed: false } : undefined;
}

/**
 * Extracts quads and links from a fetched document with the extractor for its media type.
 * Never throws for bad input: problems are diagnostics. Unknown types give an empty result.
 */
export async function extract(input: ExtractInput, ctx: ExtractContext): Promise<ExtractResult> {
  const choice = chooseExtractor(input);
  if (!choice) return { quads: [], links: [], diagnostics: [] };
  const { extractor, mediaType, sniffed } = choice;
  let result: ExtractResult;
  try {
    result = await extractor.extract(sniffed ? { ...input, mediaType } : input, ctx);
  } catch (error) {
    // An extractor bug must not take the crawler down with it.
    result = { quads: [], links: [], diagnostics: [{ level: 'error', message: `${extractor.name} extractor failed: ${error instanceof Error ? error.message : String(error)}` }] };
  }
  if (sniffed && essenceOf(input.mediaType) !== mediaType) {
    result.diagnostics.unshift({ level: 'warning', message: `served as "${essenceOf(input.mediaType) || '(none)'}", parsed as ${mediaType} (sniffed)` });
  }
  applyRobotsHeader(result, input.headers['x-robots-tag']);
  return result;
}

/** X-Robots-Tag holds for every format (a Turtle file can say nofollow), as META robots does for HTML. */
function applyRobotsHeader(result: ExtractResult, header: string | undefined): void {
  const asked = xRobotsTag(header);
  if (!asked.noindex && !asked.nofollow) return;
  const robots = { noindex: asked.noindex || (result.robots?.noindex ?? false), nofollow: asked.nofollow || (result.robots?.nofollow ?? false) };
  if (asked.noindex && !result.robots?.noindex) {
    result.quads = [];
    result.diagnostics.push({ level: 'warning', message: 'X-Robots-Tag noindex: no triples kept' });
  }
  if (asked.nofollow && !result.robots?.nofollow) {
    result.links = result.links.map(markNofollow);
    result.diagnostics.push({ level: 'warning', message: 'X-Robots-Tag nofollow: no links followed' });
  }
  result.robots = robots;
}
