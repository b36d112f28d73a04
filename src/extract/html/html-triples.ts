import type { Quad, NamedNode } from '@rdfjs/types';
import type { DataFactory } from 'rdf-data-factory';
import type { FoundLink } from '../types.ts';
import { essenceOf } from '../../util/content-type.ts';
import type { HeaderLink } from '../../util/link-format.ts';
import { resolveReference, type RawAnchor, type ScanResult } from './scanner.ts';
import { DCTERMS, DM, RDF_MEDIA_TYPES, XHV, relPredicate } from './vocab.ts';
import { isRobotsMetaName, readRobotsDirectives, type RobotsDirectives } from '../robots.ts';

/**
 * The HTML of a page as triples (docs/vocabulary.md) and the links the crawler should follow.
 * Subject of everything is the document itself (its final URL).
 */

export interface HtmlTriplesInput {
  docUrl: string;
  scan: ScanResult;
  headerLinks: HeaderLink[];
  /** `s p o` keys of XHTML-vocabulary triples RDFa already produced: not produced twice. */
  rdfaXhvKeys: Set<string>;
  factory: DataFactory;
  /** false: only the links are wanted (the page triples are off). */
  quads?: boolean;
}

/** Relations that point to a description of the document whatever the media type says. */
const DESCRIPTION_RELS = new Set(['meta', 'describedby', 'metainfo']);
/** Schemes whose targets are not documents. */
const NOT_A_DOCUMENT = /^(?:javascript|data|vbscript|about|blob):/i;

export function xhvKey(s: string, p: string, o: string): string {
  return `${s} ${p} ${o}`;
}

export interface HtmlTriplesResult {
  quads: Quad[];
  links: FoundLink[];
  /** Targets linked only with rel="nofollow": the link triples name them, the crawl must not follow them. */
  nofollowTargets: string[];
}

export function htmlTriples({ docUrl, scan, headerLinks, rdfaXhvKeys, factory: f, quads: wanted = true }: HtmlTriplesInput): HtmlTriplesResult {
  const quads: Quad[] = [];
  const links: FoundLink[] = [];
  const doc = f.namedNode(docUrl);
  const add = wanted
    ? (s: Quad['subject'], p: string, o: Quad['object']): void => void quads.push(f.quad(s, f.namedNode(p), o))
    : (): void => {};
  const literal = (value: string) => f.literal(value);

  if (scan.title) add(doc, `${DCTERMS}title`, literal(scan.title));
  for (const { name, content } of scan.metas) metaTriples(name, content.trim(), doc, add, literal, f);

  const relation = (subject: NamedNode, token: string, object: NamedNode): void => {
    const predicate = relPredicate(token);
    if (!predicate) return;
    if (predicate.startsWith(XHV) && rdfaXhvKeys.has(xhvKey(subject.value, predicate, object.value))) return;
    add(subject, predicate, object);
  };
  const follow = new Set<string>();
  // rel="nofollow" is per link: a target another link of the page leads to without it is followed.
  const followed = new Set<string>();
  const unfollowed = new Set<string>();
  const followLink = (url: string, kind: FoundLink['kind'], rel: string | undefined, nofollow: boolean): void => {
    if (!/^https?:/i.test(url)) return;
    (nofollow ? unfollowed : followed).add(url);
    const key = `${kind} ${nofollow} ${url}`;
    if (follow.has(key)) return;
    follow.add(key);
    const link: FoundLink = rel ? { url, kind, rel } : { url, kind };
    if (nofollow) link.nofollow = true;
    links.push(link);
  };
  const recordType = (target: NamedNode, type: string | undefined): void => {
    if (type) add(target, `${DCTERMS}format`, literal(type));
  };

  for (const link of scan.linkElements) {
    const url = resolveReference(link.href, link.base ?? scan.base);
    if (!url || NOT_A_DOCUMENT.test(url)) continue;
    const target = f.namedNode(url);
    const rels = tokens(link.rel);
    for (const token of rels) relation(doc, token, target);
    // Its relation triple names the target whether or not it is followed as data: nofollow holds for it too.
    if (/^https?:/i.test(url)) (hasNofollow(rels) ? unfollowed : followed).add(url);
    // rev: the target stands in that relation to this document (seed 003: REV="Subsection").
    for (const token of tokens(link.rev)) relation(target, token, doc);
    const type = link.type === undefined ? undefined : essenceOf(link.type);
    const rdfType = type !== undefined && RDF_MEDIA_TYPES.has(type);
    if (rdfType || rels.some((r) => DESCRIPTION_RELS.has(r.toLowerCase()))) {
      followLink(url, 'alternate', link.rel, hasNofollow(rels));
      if (rdfType) recordType(target, type);
    }
  }

  for (const link of headerLinks) {
    const url = resolveReference(link.target, docUrl);
    if (!url || NOT_A_DOCUMENT.test(url)) continue;
    const rdfType = link.type !== undefined && RDF_MEDIA_TYPES.has(link.type);
    const describes = link.rels.some((r) => DESCRIPTION_RELS.has(r));
    if (!(describes || (rdfType && link.rels.includes('alternate')))) continue;
    const target = f.namedNode(url);
    for (const token of link.rels) relation(doc, token, target);
    if (rdfType) recordType(target, link.type);
    followLink(url, 'header', link.rels.join(' '), hasNofollow(link.rels));
  }

  const seenTargets = new Set<string>();
  const seenAnchors = new Set<string>();
  for (const anchor of scan.anchors) {
    if (anchor.href.trim().startsWith('#')) continue; // a place in this document, not a link to another
    const url = resolveReference(anchor.href, anchor.base ?? scan.base);
    if (!url || NOT_A_DOCUMENT.test(url)) continue;
    const target = f.namedNode(url);
    if (!seenTargets.has(url)) {
      seenTargets.add(url);
      add(doc, `${DM}linksTo`, target);
    }
    if (anchor.text && !seenAnchors.has(`${url}\n${anchor.text}`)) {
      seenAnchors.add(`${url}\n${anchor.text}`);
      const node = f.blankNode();
      add(doc, `${DM}anchor`, node);
      add(node, `${DM}target`, target);
      add(node, `${DM}text`, literal(anchor.text));
    }
    if (!/^https?:/i.test(url)) continue;
    const nofollow = hasNofollow(tokens(anchor.rel));
    (nofollow ? unfollowed : followed).add(url);
    links.push(new AnchorLink(url, anchor, nofollow));
  }
  const nofollowTargets = [...unfollowed].filter((url) => !followed.has(url));
  // A nofollow link to a target that is followed anyway says nothing the crawl needs.
  const kept = nofollowTargets.length === unfollowed.size ? links : links.filter((l) => !l.nofollow || !followed.has(l.url));
  return { quads, links: kept, nofollowTargets };
}

/** rel="nofollow", alone or with others ("nofollow ugc", "sponsored nofollow"). */
function hasNofollow(rels: string[]): boolean {
  return rels.some((r) => r.toLowerCase() === 'nofollow');
}

/** A link found through an anchor; its context is the anchor's, worked out only when read. */
class AnchorLink implements FoundLink {
  readonly kind = 'anchor' as const;
  readonly anchorText: string | undefined;
  readonly rel: string | undefined;
  nofollow?: boolean;

  constructor(readonly url: string, private readonly anchor: RawAnchor, nofollow: boolean) {
    this.anchorText = anchor.text || undefined;
    this.rel = anchor.rel;
    if (nofollow) this.nofollow = true;
  }

  get context(): string | undefined {
    return this.anchor.context || undefined;
  }
}

function tokens(value: string | undefined): string[] {
  return value ? value.trim().split(/\s+/).filter(Boolean) : [];
}

/** META name/content pairs: Dublin Core where a term fits, the project vocabulary otherwise. */
function metaTriples(
  name: string,
  content: string,
  doc: NamedNode,
  add: (s: Quad['subject'], p: string, o: Quad['object']) => void,
  literal: (value: string) => Quad['object'],
  f: DataFactory,
): void {
  if (!content) return;
  switch (name) {
    case 'description':
      return add(doc, `${DCTERMS}description`, literal(content));
    case 'author':
      return add(doc, `${DCTERMS}creator`, literal(content));
    case 'keywords':
      for (const keyword of content.split(/[,;]/)) if (keyword.trim()) add(doc, `${DCTERMS}subject`, literal(keyword.trim()));
      return;
    case 'robots':
      return add(doc, `${DM}robots`, literal(content.toLowerCase()));
    default: {
      const node = f.blankNode();
      add(doc, `${DM}meta`, node);
      add(node, `${DM}name`, literal(name));
      add(node, `${DM}content`, literal(content));
    }
  }
}

/** META robots directives (noindex, nofollow, none), also under our own robot's name. */
export function robotsDirectives(scan: ScanResult): RobotsDirectives {
  const robots = { noindex: false, nofollow: false };
  for (const { name, content } of scan.metas) if (isRobotsMetaName(name)) readRobotsDirectives(content, robots);
  return robots;
}
