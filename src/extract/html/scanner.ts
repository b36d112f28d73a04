import { Parser, type Handler } from 'htmlparser2';
import { RdfaParser, Util, type RdfaProfile } from 'rdfa-streaming-parser';
import { MicrodataRdfParser } from 'microdata-rdf-streaming-parser';
import type { Quad } from '@rdfjs/types';
import type { Diagnostic } from '../types.ts';
import { essenceOf } from '../../util/content-type.ts';
import { RDF_NS } from './vocab.ts';

/**
 * One htmlparser2 pass over a decoded HTML/XHTML/SVG/XML document drives everything: RDFa and microdata
 * (their streaming parsers are fed our parser's events instead of parsing again), <script> data blocks,
 * rdf:RDF islands (also in comments), <a>/<link>/<meta>/<base>/<title>, and the plain text.
 * The scanner only collects; turning what it found into triples and links is html-triples.ts' job.
 */

export interface ScanOptions {
  /** Final URL of the document: the base before any <base>/xml:base. */
  url: string;
  xmlMode: boolean;
  rdfaProfile: RdfaProfile;
  microdata: boolean;
  /** Called for every RDFa/microdata quad; returns false once no more quads are wanted. */
  sink: (quad: Quad) => boolean;
  signal?: AbortSignal;
  /** Collect page requisites (img, script, media, inline style sheets): only --page-requisites wants them. */
  requisites?: boolean;
}

/**
 * An anchor as the scan found it. The words around it are worked out only when `context` is read
 * (only similarity ordering reads them): a prototype getter, so thousands of anchors stay cheap.
 */
export class RawAnchor {
  /** The page's text parts and where the anchor sits in them (set when the scan ends). */
  parts: string[] = [];
  startPart = 0;
  endPart = 0;
  private cachedContext: string | undefined;

  constructor(
    readonly href: string,
    /** The base in force where the anchor was (xml:base); undefined: the document base. */
    readonly base: string | undefined,
    readonly rel: string | undefined,
    public text: string,
  ) {}

  get context(): string {
    const words = SCAN_LIMITS.contextWords;
    return (this.cachedContext ??= [wordsBefore(this.parts, this.startPart, words), this.text, wordsAfter(this.parts, this.endPart, words)].filter(Boolean).join(' '));
  }
}

export interface RawLinkElement {
  rel?: string;
  rev?: string;
  href: string;
  type?: string;
  base?: string;
}

export interface RdfXmlIsland {
  xml: string;
  namespaces: Record<string, string>;
  lang?: string;
  base: string;
}

/**
 * A reference to something the page needs to be shown (an image, a script, media, a style sheet's
 * text), as the scan found it: --page-requisites fetches these (./requisites.ts reads them).
 */
export interface RawRequisite {
  href: string;
  /** The base in force where it was (xml:base); undefined: the document base. */
  base?: string;
}

export interface ScriptBlock {
  type: string;
  text: string;
  base: string;
}

export interface ScanResult {
  /** The document base after <base href> (xml:base is per element). */
  base: string;
  title?: string;
  text: string;
  anchors: RawAnchor[];
  linkElements: RawLinkElement[];
  /** META name (lower case) and content, in document order. */
  metas: Array<{ name: string; content: string }>;
  islands: RdfXmlIsland[];
  scripts: ScriptBlock[];
  /** img/source src and srcset, script src, video/audio/track/embed src, poster, input type=image (<link> ones are in linkElements). */
  requisites: RawRequisite[];
  /** The text of <style> elements and style="" attributes that load something (url(…), @import), for --page-requisites. */
  styles: Array<{ css: string; base?: string }>;
  diagnostics: Diagnostic[];
}

export const SCAN_LIMITS = {
  /** Characters of plain text kept (ExtractResult.text). */
  maxText: 100_000,
  /** Characters of plain text kept for anchor contexts: anchors past it get their anchor text only. */
  maxContextText: 2_000_000,
  maxTitle: 1_000,
  maxAnchorText: 300,
  /** Words of context on each side of an anchor. */
  contextWords: 10,
  /**
   * Links (<a>, <area>) kept per page: a real page stays far below (a long index page has a few
   * thousand); past it is a trap or a dump, and each kept link costs a seen-test lookup and memory.
   * Those past it are counted in a diagnostic.
   */
  maxAnchors: 20_000,
  /** <link> elements kept per page (the same reasoning; a page has a handful). */
  maxLinkElements: 20_000,
  /**
   * Page requisites (src, srcset, poster references; inline style sheets) kept per page: a gallery
   * has hundreds, past this it is a dump; each becomes a fetch with --page-requisites.
   */
  maxRequisites: 2_000,
  /** A <script> data block or rdf:RDF island larger than this is skipped with a diagnostic. */
  maxIslandChars: 16 * 1024 * 1024,
  maxIslands: 1_000,
  /**
   * Elements nested deeper than this are not given to RDFa/microdata: the RDFa library walks up
   * the ancestors on each element (O(depth^2) for hostile nesting); real pages stay far below.
   */
  maxRdfaDepth: 1_000,
  /** Past this nesting the rest of the document is not read: htmlparser2's open-element stack costs O(depth) per element. */
  maxDepth: 10_000,
  /** The document is written to the parser in slices so that an abort or the quad limit stops it early. */
  chunk: 1 << 16,
};

/** Elements whose boundaries separate words in the plain text. */
const BLOCK_ELEMENTS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure',
  'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre',
  'section', 'table', 'td', 'th', 'tr', 'ul', 'option', 'title', 'body', 'head', 'html',
]);
/** Elements whose text is not document text. */
const HIDDEN_TEXT = new Set(['script', 'style', 'template', 'noscript']);

interface RdfaActiveTag {
  predicates?: unknown;
  collectChildTags?: boolean;
  collectedPatternTag?: unknown;
}

/**
 * The RDFa/microdata parsers push quads into a stream; we take them synchronously instead of buffering.
 * RDFa also gets a fix: the library keeps the text of every element and appends it to the parent's with
 * Array.concat on every close, so a page with many siblings (a long list of links) costs O(n^2) time
 * (15,000 anchors: 5 s) and holds the whole text. Text is only needed under an element with @property,
 * an XML literal or an rdfa:Pattern: elsewhere it is not handed to the library at all.
 */
class CapturingRdfaParser extends RdfaParser {
  sink: (quad: Quad) => unknown = () => true;
  private readonly needsText: boolean[] = [];
  private openNeedingText = 0;

  override push(chunk: unknown): boolean {
    if (chunk !== null) this.sink(chunk as Quad);
    return true;
  }

  override onTagOpen(name: string, attributes: Record<string, string>): void {
    super.onTagOpen(name, attributes);
    const stack = (this as unknown as { activeTagStack: RdfaActiveTag[] }).activeTagStack;
    const tag = stack[stack.length - 1];
    const needs = Boolean(tag.predicates || tag.collectChildTags || tag.collectedPatternTag);
    this.needsText.push(needs);
    if (needs) this.openNeedingText++;
  }

  override onText(data: string): void {
    if (this.openNeedingText > 0) super.onText(data);
  }

  override onTagClose(): void {
    super.onTagClose();
    if (this.needsText.pop()) this.openNeedingText--;
  }
}
class CapturingMicrodataParser extends MicrodataRdfParser {
  sink: (quad: Quad) => unknown = () => true;
  override push(chunk: unknown): boolean {
    if (chunk !== null) this.sink(chunk as Quad);
    return true;
  }
}

/** Per element: what it changes in scope (most elements change nothing and get `undefined`). */
interface ScopeFrame {
  namespaces?: Record<string, string>;
  lang?: string;
  /** xml:base before this element set it. */
  previousXmlBase?: string;
  setsXmlBase: boolean;
}

interface OpenAnchor {
  anchor: RawAnchor;
  depth: number;
  /** textParts.length when the anchor opened and closed: its context is computed at the end. */
  startPart: number;
  endPart: number;
}

function resolveOr(href: string, base: string): string | undefined {
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return undefined;
  }
}

/** The URLs of a srcset ("a.png 1x, b.png 2x"): a URL may hold commas, a candidate ends at a comma after whitespace or its URL. */
function srcsetUrls(srcset: string): string[] {
  const out: string[] = [];
  for (const candidate of srcset.split(/,(?=\s|$)/)) {
    const url = candidate.trim().split(/\s+/)[0];
    if (url) out.push(url);
  }
  return out;
}

const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 160;

/**
 * About `count` words of text ending before part `end` (walking back over as few parts as needed),
 * whitespace folded. Scans characters instead of split/join: this runs for every anchor of a page.
 */
function wordsBefore(parts: string[], end: number, count: number): string {
  let text = '';
  for (let i = end - 1; i >= 0 && text.length < count * 12; i--) text = parts[i] + text;
  let j = text.length;
  while (j > 0 && isSpace(text.charCodeAt(j - 1))) j--;
  const stop = j;
  let words = 0;
  while (j > 0 && words < count) {
    while (j > 0 && !isSpace(text.charCodeAt(j - 1))) j--;
    words++;
    if (words < count) while (j > 0 && isSpace(text.charCodeAt(j - 1))) j--;
  }
  while (j < stop && isSpace(text.charCodeAt(j))) j++;
  return foldSpaces(text.slice(j, stop));
}

function wordsAfter(parts: string[], start: number, count: number): string {
  let text = '';
  for (let i = start; i < parts.length && text.length < count * 12; i++) text += parts[i];
  let j = 0;
  while (j < text.length && isSpace(text.charCodeAt(j))) j++;
  const from = j;
  let words = 0;
  while (j < text.length && words < count) {
    while (j < text.length && !isSpace(text.charCodeAt(j))) j++;
    words++;
    if (words < count) while (j < text.length && isSpace(text.charCodeAt(j))) j++;
  }
  while (j > from && isSpace(text.charCodeAt(j - 1))) j--;
  return foldSpaces(text.slice(from, j));
}

const SPACE_RUN = /\s+/g;
function foldSpaces(s: string): string {
  return /\s\s|[\t\n\r\f\v\u00a0]/.test(s) ? s.replace(SPACE_RUN, ' ') : s;
}

type PrefixMap = Record<string, string>;
const libraryParsePrefixes = Util.parsePrefixes;
const inheriting = new WeakMap<PrefixMap, PrefixMap>();

/** Util.parsePrefixes, but an element that declares nothing gets its parent's map as a prototype. */
function parsePrefixesByPrototype(attributes: Record<string, string>, parent: PrefixMap, xmlns: boolean): PrefixMap {
  const flat: PrefixMap = {};
  for (const k in parent) flat[k] = parent[k]; // own and inherited
  const own = libraryParsePrefixes(attributes, flat, xmlns);
  if (own !== flat) return own; // this element declares prefixes: a full map, as the library makes
  if (Object.keys(flat).length === 0) return parent;
  let child = inheriting.get(parent);
  if (!child) inheriting.set(parent, (child = Object.create(parent) as PrefixMap));
  return child;
}

class Scanner implements Partial<Handler> {
  readonly result: ScanResult;
  private readonly parser: Parser;
  private readonly rdfa?: CapturingRdfaParser;
  private readonly microdata?: CapturingMicrodataParser;
  private stopped = false;
  private source = '';

  private readonly stack: Array<ScopeFrame | undefined> = [];
  private xmlBase: string | undefined;
  private seenBase = false;
  /** Links past SCAN_LIMITS.maxAnchors / maxLinkElements: counted, so the diagnostic can say how many. */
  private droppedAnchors = 0;
  private droppedLinkElements = 0;
  private hiddenDepth = 0;
  private titleDepth = -1;
  private titleText = '';
  private readonly textParts: string[] = [];
  private textLength = 0;
  private anchor: OpenAnchor | undefined;
  private readonly closedAnchors: OpenAnchor[] = [];
  private island: { depth: number; start: number; namespaces: Record<string, string>; lang?: string; base: string } | undefined;
  private script: { depth: number; type: string; parts: string[]; length: number; base: string } | undefined;
  private style: { depth: number; parts: string[]; length: number; base: string | undefined } | undefined;
  private droppedRequisites = 0;

  constructor(private readonly options: ScanOptions) {
    this.result = { base: options.url, text: '', anchors: [], linkElements: [], metas: [], islands: [], scripts: [], requisites: [], styles: [], diagnostics: [] };
    this.parser = new Parser(this, {
      xmlMode: options.xmlMode,
      decodeEntities: true,
      lowerCaseTags: !options.xmlMode,
      lowerCaseAttributeNames: !options.xmlMode,
      recognizeCDATA: options.xmlMode,
      recognizeSelfClosing: options.xmlMode || options.rdfaProfile === 'xhtml',
    });
    const stop = (quad: Quad): void => {
      if (!this.stopped && !options.sink(quad)) this.stopped = true;
    };
    this.rdfa = new CapturingRdfaParser({ baseIRI: options.url, profile: options.rdfaProfile });
    this.rdfa.sink = stop;
    if (options.microdata) {
      this.microdata = new CapturingMicrodataParser({ baseIRI: options.url });
      this.microdata.sink = stop;
    }
  }

  scan(source: string): ScanResult {
    this.source = source;
    this.lightPrefixes = !source.includes('XMLLiteral');
    for (let start = 0; start < source.length && !this.stopped;) {
      if (this.options.signal?.aborted) {
        this.result.diagnostics.push({ level: 'error', message: 'extraction aborted' });
        this.stopped = true;
        break;
      }
      let end = Math.min(source.length, start + SCAN_LIMITS.chunk);
      // Never split a surrogate pair between two writes.
      if (end < source.length && (source.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
      this.parser.write(source.slice(start, end));
      start = end;
    }
    this.parser.end();
    return this.finish();
  }

  private finish(): ScanResult {
    const r = this.result;
    // The page text is folded when first read (2 ms on a 200 KB page; only similarity ordering reads it).
    const textParts = this.textParts;
    let text: string | undefined;
    Object.defineProperty(r, 'text', {
      enumerable: true,
      get: () => {
        if (text === undefined) {
          let raw = '';
          for (let i = 0; i < textParts.length && raw.length < SCAN_LIMITS.maxText * 2; i++) raw += textParts[i];
          text = raw.replace(/\s+/g, ' ').trim().slice(0, SCAN_LIMITS.maxText);
        }
        return text;
      },
    });
    if (this.droppedAnchors) r.diagnostics.push({ level: 'warning', message: `${this.droppedAnchors} links (<a>, <area>) past the limit of ${SCAN_LIMITS.maxAnchors} per page dropped` });
    if (this.droppedLinkElements) r.diagnostics.push({ level: 'warning', message: `${this.droppedLinkElements} <link> elements past the limit of ${SCAN_LIMITS.maxLinkElements} per page dropped` });
    if (this.droppedRequisites) r.diagnostics.push({ level: 'warning', message: `${this.droppedRequisites} page requisites (images, scripts, media) past the limit of ${SCAN_LIMITS.maxRequisites} per page dropped` });
    if (this.titleText) r.title = this.titleText.replace(/\s+/g, ' ').trim() || undefined;
    if (this.anchor) this.closedAnchors.push({ ...this.anchor, endPart: this.textParts.length });
    for (const { anchor, startPart, endPart } of this.closedAnchors) {
      anchor.text = foldSpaces(anchor.text).trim().slice(0, SCAN_LIMITS.maxAnchorText);
      anchor.parts = this.textParts;
      anchor.startPart = startPart;
      anchor.endPart = endPart;
    }
    return r;
  }

  // --- RDFa / microdata forwarding: a library failure becomes a diagnostic and switches that library off.
  private rdfaFailed = false;
  private microdataFailed = false;
  private depthWarned = false;
  /** Whether the current event goes to RDFa/microdata. */
  private forwarding(): boolean {
    if (this.island) return false; // An rdf:RDF island is RDF/XML, not RDFa.
    if (this.stack.length > SCAN_LIMITS.maxRdfaDepth) {
      if (!this.depthWarned) {
        this.depthWarned = true;
        this.result.diagnostics.push({ level: 'warning', message: `elements nested deeper than ${SCAN_LIMITS.maxRdfaDepth} levels: their RDFa/microdata is ignored` });
      }
      return false;
    }
    return true;
  }

  private libraryFailed(which: 'RDFa' | 'microdata', error: unknown): void {
    if (which === 'RDFa') this.rdfaFailed = true;
    else this.microdataFailed = true;
    this.result.diagnostics.push({ level: 'error', message: `${which} processing stopped: ${(error as Error)?.message ?? error}` });
  }

  private forwardOpen(name: string, attribs: Record<string, string>): void {
    if (!this.forwarding()) return;
    // The parsers may rewrite attributes (RDFa drops ignored rel/rev): microdata gets its own copy.
    if (this.microdata && !this.microdataFailed) {
      try { this.microdata.onTagOpen(name, { ...attribs }); } catch (error) { this.libraryFailed('microdata', error); }
    }
    if (this.rdfa && !this.rdfaFailed) {
      // Once any element declares a prefix (or xmlns), rdfa-streaming-parser copies the whole prefix
      // map at every element below it (measured: 80 ms of a 220 KB XHTML page, 56 % of an RDFa shop
      // page). Handing it inherited prefixes as a prototype instead of own keys makes it copy only
      // where an element declares something. Only XML literals list the own keys (to serialise
      // namespaces), so a page that has one keeps the library's way.
      if (this.lightPrefixes) Util.parsePrefixes = parsePrefixesByPrototype;
      try { this.rdfa.onTagOpen(name, attribs); } catch (error) { this.libraryFailed('RDFa', error); }
      finally { Util.parsePrefixes = libraryParsePrefixes; }
    }
  }

  private lightPrefixes = false;

  private forwardText(data: string): void {
    if (!this.forwarding()) return;
    if (this.microdata && !this.microdataFailed) {
      try { this.microdata.onText(data); } catch (error) { this.libraryFailed('microdata', error); }
    }
    if (this.rdfa && !this.rdfaFailed) {
      try { this.rdfa.onText(data); } catch (error) { this.libraryFailed('RDFa', error); }
    }
  }

  private forwardClose(): void {
    if (!this.forwarding()) return;
    if (this.microdata && !this.microdataFailed) {
      try { this.microdata.onTagClose(); } catch (error) { this.libraryFailed('microdata', error); }
    }
    if (this.rdfa && !this.rdfaFailed) {
      try { this.rdfa.onTagClose(); } catch (error) { this.libraryFailed('RDFa', error); }
    }
  }

  onopentag(name: string, attribs: Record<string, string>): void {
    this.stack.push(this.scopeFrame(attribs));
    const depth = this.stack.length;
    if (depth > SCAN_LIMITS.maxDepth && !this.stopped) {
      this.stopped = true;
      this.result.diagnostics.push({ level: 'error', message: `elements nested deeper than ${SCAN_LIMITS.maxDepth} levels: the rest of the document is not read` });
    }
    const lower = this.options.xmlMode ? name.toLowerCase() : name;

    if (!this.island) this.elementOpened(lower, name, attribs, depth);
    if (this.hiddenDepth === 0 && BLOCK_ELEMENTS.has(lower)) this.addText(' ');

    this.forwardOpen(name, attribs);
  }

  private elementOpened(lower: string, name: string, attribs: Record<string, string>, depth: number): void {
    if (this.isRdfRoot(name, attribs)) {
      this.island = { depth, start: this.parser.startIndex, namespaces: this.inScopeNamespaces(), lang: this.inScopeLang(), base: this.currentBase() };
      return;
    }
    if (this.options.requisites) this.requisitesOf(lower, attribs);
    switch (lower) {
      case 'a':
      case 'area': {
        const href = attribs.href ?? attribs['xlink:href'];
        if (href === undefined || this.anchor) break;
        if (this.result.anchors.length >= SCAN_LIMITS.maxAnchors) {
          this.droppedAnchors++;
          break;
        }
        const anchor = new RawAnchor(href, this.xmlBase, attribs.rel, lower === 'area' ? attribs.alt ?? '' : '');
        this.result.anchors.push(anchor);
        if (lower === 'a') this.anchor = { anchor, depth, startPart: this.textParts.length, endPart: -1 };
        break;
      }
      case 'link':
        if (attribs.href !== undefined && (attribs.rel || attribs.rev)) {
          if (this.result.linkElements.length >= SCAN_LIMITS.maxLinkElements) {
            this.droppedLinkElements++;
            break;
          }
          this.result.linkElements.push({ rel: attribs.rel, rev: attribs.rev, href: attribs.href, type: attribs.type, base: this.xmlBase });
        }
        break;
      case 'meta': {
        const metaName = attribs.name;
        if (metaName && attribs.content !== undefined) this.result.metas.push({ name: metaName.toLowerCase(), content: attribs.content });
        break;
      }
      case 'base':
        if (!this.seenBase && attribs.href !== undefined) {
          this.seenBase = true;
          const resolved = resolveOr(attribs.href, this.options.url);
          if (resolved) {
            this.result.base = resolved;
            // The microdata library has no <base> support: tell it the base it must use from now on.
            if (this.microdata) (this.microdata as unknown as { util: { baseIRI: string } }).util.baseIRI = resolved;
          }
        }
        break;
      case 'title':
        if (this.titleDepth < 0 && !this.titleText) this.titleDepth = depth;
        break;
      case 'script': {
        this.hiddenDepth++;
        const type = attribs.type === undefined ? undefined : essenceOf(attribs.type);
        if (type && type !== 'text/javascript' && type !== 'module' && type !== 'application/javascript') {
          this.script = { depth, type, parts: [], length: 0, base: this.currentBase() };
        }
        break;
      }
      case 'style':
        this.hiddenDepth++;
        if (!this.style && this.options.requisites) this.style = { depth, parts: [], length: 0, base: this.xmlBase };
        break;
      default:
        if (HIDDEN_TEXT.has(lower)) this.hiddenDepth++;
    }
  }

  /**
   * What the element makes a browser load to show the page (wget -p, Heritrix's embeds): kept only as
   * references; whether they are fetched is the crawl's choice (--page-requisites).
   */
  private requisitesOf(lower: string, attribs: Record<string, string>): void {
    const add = (href: string | undefined) => {
      if (href === undefined || href.trim() === '') return;
      if (this.result.requisites.length >= SCAN_LIMITS.maxRequisites) this.droppedRequisites++;
      else this.result.requisites.push({ href, base: this.xmlBase });
    };
    switch (lower) {
      case 'img':
      case 'source':
        add(attribs.src);
        if (attribs.srcset) for (const candidate of srcsetUrls(attribs.srcset)) add(candidate);
        break;
      case 'script':
      case 'audio':
      case 'track':
      case 'embed':
        add(attribs.src);
        break;
      case 'video':
        add(attribs.src);
        add(attribs.poster);
        break;
      case 'input':
        if (attribs.type?.trim().toLowerCase() === 'image') add(attribs.src);
        break;
      case 'image': // SVG <image href> / xlink:href
        add(attribs.href ?? attribs['xlink:href']);
        break;
    }
    const style = attribs.style;
    if (style !== undefined && /url\(|@import/i.test(style) && this.result.styles.length < SCAN_LIMITS.maxRequisites) {
      this.result.styles.push({ css: style, base: this.xmlBase });
    }
  }

  ontext(data: string): void {
    if (this.island) return;
    if (this.style && this.style.length < SCAN_LIMITS.maxIslandChars) {
      this.style.length += data.length;
      this.style.parts.push(data);
    }
    if (this.script) {
      this.script.length += data.length;
      if (this.script.length <= SCAN_LIMITS.maxIslandChars) this.script.parts.push(data);
    } else if (this.titleDepth >= 0) {
      if (this.titleText.length < SCAN_LIMITS.maxTitle) this.titleText += data;
    } else if (this.hiddenDepth === 0) {
      this.addText(data);
      if (this.anchor && this.anchor.anchor.text.length < SCAN_LIMITS.maxAnchorText) this.anchor.anchor.text += data;
    }
    this.forwardText(data);
  }

  onclosetag(name: string): void {
    const depth = this.stack.length;
    const lower = this.options.xmlMode ? name.toLowerCase() : name;
    if (this.island) {
      if (depth === this.island.depth) this.closeIsland();
    } else {
      this.forwardClose();
      this.elementClosed(lower, depth);
    }
    if (this.hiddenDepth === 0 && BLOCK_ELEMENTS.has(lower)) this.addText(' ');
    const frame = this.stack.pop();
    if (frame?.setsXmlBase) this.xmlBase = frame.previousXmlBase;
  }

  private elementClosed(lower: string, depth: number): void {
    if (this.anchor && depth === this.anchor.depth) {
      this.anchor.endPart = this.textParts.length;
      this.closedAnchors.push(this.anchor);
      this.anchor = undefined;
    }
    if (depth === this.titleDepth) this.titleDepth = -1;
    if (HIDDEN_TEXT.has(lower)) this.hiddenDepth = Math.max(0, this.hiddenDepth - 1);
    if (this.style && depth === this.style.depth) {
      const css = this.style.parts.join('');
      if (/url\(|@import/i.test(css) && this.result.styles.length < SCAN_LIMITS.maxRequisites) this.result.styles.push({ css, base: this.style.base });
      this.style = undefined;
    }
    if (this.script && depth === this.script.depth) {
      const { type, parts, length, base } = this.script;
      this.script = undefined;
      if (length > SCAN_LIMITS.maxIslandChars) {
        this.result.diagnostics.push({ level: 'warning', message: `<script type="${type}"> block of ${length} characters skipped (limit ${SCAN_LIMITS.maxIslandChars})` });
      } else if (this.result.scripts.length < SCAN_LIMITS.maxIslands) {
        this.result.scripts.push({ type, text: parts.join(''), base });
      }
    }
  }

  oncomment(data: string): void {
    // Seed 003: RDF hidden from browsers in a comment. Its namespaces may be declared outside the comment.
    const open = /<((?:[A-Za-z_][\w.-]*:)?)RDF[\s>]/.exec(data);
    if (!open) return;
    const closeTag = `</${open[1]}RDF`;
    const close = data.indexOf(closeTag, open.index);
    if (close < 0) {
      this.result.diagnostics.push({ level: 'warning', message: 'an rdf:RDF element in an HTML comment has no end tag: skipped' });
      return;
    }
    const end = data.indexOf('>', close);
    this.addIsland(data.slice(open.index, end < 0 ? data.length : end + 1), this.inScopeNamespaces(), this.inScopeLang(), this.currentBase());
  }

  onend(): void {
    if (!this.island) {
      try { this.rdfa?.onEnd(); } catch (error) { this.libraryFailed('RDFa', error); }
      try { this.microdata?.onEnd(); } catch (error) { this.libraryFailed('microdata', error); }
    }
  }

  onerror(error: Error): void {
    this.result.diagnostics.push({ level: 'error', message: `HTML parser: ${error.message}` });
  }

  // --- rdf:RDF islands

  private isRdfRoot(name: string, attribs: Record<string, string>): boolean {
    const colon = name.indexOf(':');
    if (name.slice(colon + 1).toLowerCase() !== 'rdf') return false;
    const prefix = colon < 0 ? '' : name.slice(0, colon);
    const declaration = prefix ? `xmlns:${prefix}` : 'xmlns';
    const ns = attribs[declaration] ?? this.lookupNamespace(prefix);
    // HTML pages often forget the declaration: an undeclared rdf: prefix still means RDF.
    return ns === RDF_NS || (ns === undefined && prefix.toLowerCase() === 'rdf');
  }

  private closeIsland(): void {
    const island = this.island!;
    this.island = undefined;
    const xml = this.source.slice(island.start, this.parser.endIndex + 1);
    this.addIsland(xml, island.namespaces, island.lang, island.base);
  }

  private addIsland(xml: string, namespaces: Record<string, string>, lang: string | undefined, base: string): void {
    if (xml.length > SCAN_LIMITS.maxIslandChars) {
      this.result.diagnostics.push({ level: 'warning', message: `embedded rdf:RDF of ${xml.length} characters skipped (limit ${SCAN_LIMITS.maxIslandChars})` });
    } else if (this.result.islands.length < SCAN_LIMITS.maxIslands) {
      this.result.islands.push({ xml, namespaces, lang, base });
    }
  }

  // --- scope: namespaces, language, xml:base

  private scopeFrame(attribs: Record<string, string>): ScopeFrame | undefined {
    let frame: ScopeFrame | undefined;
    for (const key in attribs) {
      if (key.startsWith('xmlns')) {
        if (key === 'xmlns' || key.charCodeAt(5) === 0x3a /* : */) {
          frame ??= { setsXmlBase: false };
          (frame.namespaces ??= {})[key === 'xmlns' ? '' : key.slice(6)] = attribs[key];
        }
      } else if (key === 'xml:lang' || key === 'lang') {
        frame ??= { setsXmlBase: false };
        frame.lang ??= attribs[key];
      } else if (key === 'xml:base') {
        frame ??= { setsXmlBase: false };
        const resolved = resolveOr(attribs[key], this.currentBase());
        if (resolved) {
          frame.setsXmlBase = true;
          frame.previousXmlBase = this.xmlBase;
          this.xmlBase = resolved;
        }
      }
    }
    return frame;
  }

  private currentBase(): string {
    return this.xmlBase ?? this.result.base;
  }

  private lookupNamespace(prefix: string): string | undefined {
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const ns = this.stack[i]?.namespaces?.[prefix];
      if (ns !== undefined) return ns;
    }
    return undefined;
  }

  /** Namespace declarations in scope at the current element, innermost first wins. */
  private inScopeNamespaces(): Record<string, string> {
    const scope: Record<string, string> = {};
    for (const frame of this.stack) if (frame?.namespaces) Object.assign(scope, frame.namespaces);
    return scope;
  }

  private inScopeLang(): string | undefined {
    for (let i = this.stack.length - 1; i >= 0; i--) if (this.stack[i]?.lang !== undefined) return this.stack[i]!.lang;
    return undefined;
  }

  // --- plain text and anchor context

  private addText(data: string): void {
    if (this.textLength < SCAN_LIMITS.maxContextText) {
      this.textParts.push(data);
      this.textLength += data.length;
    }
  }
}

/** Scans a decoded document once. */
export function scanDocument(source: string, options: ScanOptions): ScanResult {
  return new Scanner(options).scan(source);
}

/** Resolves a (possibly relative) reference; undefined for unparseable ones. */
export { resolveOr as resolveReference };
