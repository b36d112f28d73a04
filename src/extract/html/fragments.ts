import type { Quad, Term } from '@rdfjs/types';
import { DataFactory } from 'rdf-data-factory';
import { parseRdfXmlText } from '../rdfxml.ts';
import { parseJsonLdText } from '../jsonld.ts';
import { parseN3Text, type N3Format } from '../n3.ts';
import type { Diagnostic, ExtractContext } from '../types.ts';
import { escapeXml } from '../../util/escape.ts';
import { essenceOf } from '../../util/content-type.ts';

/**
 * Parsing of the RDF islands found in an HTML or XML document: rdf:RDF elements (also inside comments)
 * and <script> data blocks. Each island is a document of its own for blank node labels, so its blank
 * nodes get an island prefix: `_:b0` in two JSON-LD blocks are two different nodes.
 */

export interface IslandResult {
  quads: Quad[];
  diagnostics: Diagnostic[];
}

const factory = new DataFactory();

/** Unqualified attributes of the 1999 RDF Model and Syntax spec, still found in old pages (seed 003's examples). */
const LEGACY_RDF_ATTRIBUTES = /(\s)(about|resource|ID|parseType|aboutEach|bagID|nodeID)(\s*=)/g;
const START_TAG = /<[A-Za-z_][^<>]*>/g;

/**
 * Makes an rdf:RDF fragment parseable on its own: the namespace declarations (and xml:lang) in scope where
 * it was found are copied onto its root element unless the root redeclares them, and legacy unqualified
 * RDF attributes become qualified.
 */
export function standaloneRdfXml(fragment: string, inScope: Record<string, string>, lang: string | undefined, warnings: Diagnostic[]): string {
  const rootEnd = /^<([^\s>/]+)/.exec(fragment);
  if (!rootEnd) return fragment;
  const rootName = rootEnd[1];
  const rootTag = /^<[^>]*>/.exec(fragment)?.[0] ?? '';
  let additions = '';
  for (const [prefix, ns] of Object.entries(inScope)) {
    const attribute = prefix === '' ? 'xmlns' : `xmlns:${prefix}`;
    if (!new RegExp(`\\s${attribute.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*=`).test(rootTag)) additions += ` ${attribute}="${escapeXml(ns)}"`;
  }
  if (lang !== undefined && !/\sxml:lang\s*=/.test(rootTag)) additions += ` xml:lang="${escapeXml(lang)}"`;
  let text = additions ? `<${rootName}${additions}${fragment.slice(rootName.length + 1)}` : fragment;

  const colon = rootName.indexOf(':');
  const rdfPrefix = colon > 0 ? rootName.slice(0, colon) : undefined;
  if (rdfPrefix) {
    let rewritten = 0;
    text = text.replace(START_TAG, (tag) => tag.replace(LEGACY_RDF_ATTRIBUTES, (_all, space: string, name: string, eq: string) => {
      rewritten++;
      return `${space}${rdfPrefix}:${name}${eq}`;
    }));
    if (rewritten > 0) warnings.push({ level: 'warning', message: `embedded RDF/XML uses ${rewritten} unqualified RDF attribute(s) (about=, resource=, ...) of the 1999 syntax: read as rdf:-qualified` });
  }
  return text;
}

/** Gives every blank node of an island a prefix unique to the island. */
function isolateBlankNodes(quads: Quad[], prefix: string): Quad[] {
  const rename = <T extends Term>(term: T): T => (term.termType === 'BlankNode' ? factory.blankNode(prefix + term.value) as unknown as T : term);
  return quads.map((q) => (q.subject.termType === 'BlankNode' || q.object.termType === 'BlankNode' || q.graph.termType === 'BlankNode'
    ? factory.quad(rename(q.subject), q.predicate, rename(q.object), rename(q.graph))
    : q));
}

export function parseRdfXmlIsland(xml: string, baseIRI: string, island: number, ctx: ExtractContext, maxQuads: number): IslandResult {
  const { quads, diagnostics } = parseRdfXmlText(xml, baseIRI, maxQuads, ctx.signal);
  return { quads: isolateBlankNodes(quads, `x${island}_`), diagnostics: labelled(diagnostics, `embedded RDF/XML #${island}`) };
}

/** Media types of <script> data blocks that carry RDF. */
const SCRIPT_FORMATS: Record<string, 'jsonld' | N3Format> = {
  'application/ld+json': 'jsonld',
  'text/turtle': 'Turtle',
  'application/n-triples': 'N-Triples',
  'application/n-quads': 'N-Quads',
  'application/trig': 'TriG',
  'text/n3': 'N3',
};

export function scriptFormat(type: string | undefined): 'jsonld' | N3Format | undefined {
  if (!type) return undefined;
  return SCRIPT_FORMATS[essenceOf(type)];
}

export async function parseScriptIsland(text: string, format: 'jsonld' | N3Format, baseIRI: string, island: number, ctx: ExtractContext, maxQuads: number): Promise<IslandResult> {
  // HTML authors often wrap data blocks in comment or CDATA markers to hide them from old browsers.
  const body = text.replace(/^\s*(?:<!--|<!\[CDATA\[)/, '').replace(/(?:-->|\]\]>)\s*$/, '');
  const result = format === 'jsonld'
    ? await parseJsonLdText(body, { baseIRI, maxQuads, loadDocument: ctx.loadDocument, signal: ctx.signal })
    : await parseN3Text(body, format, baseIRI, maxQuads);
  const name = format === 'jsonld' ? 'JSON-LD' : format;
  return { quads: isolateBlankNodes(result.quads, `s${island}_`), diagnostics: labelled(result.diagnostics, `<script> ${name} block #${island}`) };
}

function labelled(diagnostics: Diagnostic[], where: string): Diagnostic[] {
  // An island's line numbers count from the island, not the page: say where instead. No reason: one
  // broken data block does not make the page a parse error.
  return diagnostics.map((d) => ({ level: d.level, message: `${where}: ${d.message}` }));
}
