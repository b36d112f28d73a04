import { isSitemapXml, parseSitemap, type Sitemap } from '../extract/sitemap.ts';
import { normalizeUrl } from '../frontier/normalize.ts';
import type { CrawlOptions } from './options.ts';

/**
 * How deep sitemap indexes may nest. sitemaps.org: an index lists sitemaps, not other indexes; a
 * little slack (an index listing an index listing sitemaps) for sites that nest anyway. Past it, an
 * index's children are dropped with a diagnostic: an index that lists an index that lists ... (a trap,
 * or a generator gone wrong: 23,544 nested indexes in 60 s) ends there.
 */
export const MAX_SITEMAP_NESTING = 2;
/**
 * The nesting a sitemap queued by a killed run gets back when it is read on the resume: the store
 * does not keep it, and every sitemap robots.txt or the user names is asked for again (nesting 0),
 * so one that is not was listed by an index.
 */
const RESUMED_NESTING = 1;

interface Asked {
  /** robots.txt or the user named it, or an index that was did: it vouches for its whole host. */
  hostWide: boolean;
  /** 0: named by robots.txt, the user or the /sitemap.xml convention; n + 1: listed by an index at n. */
  nesting: number;
}

/**
 * The sitemaps of one crawl: those it asked for, whether each vouches for its whole host (robots.txt
 * or the user named it, or a sitemap index that does listed it), how deep in indexes each was found,
 * and the reading of a fetched one.
 * One queued by a killed run comes back from the store as a plain URL: an XML sitemap is also known by
 * its root element, as RDF/XML is, and keeps the host-wide scope when robots.txt or the user vouched
 * for a sitemap of its origin (the index that listed it was read before the kill, so it is not asked for now).
 */
export class CrawlSitemaps {
  private readonly asked = new Map<string, Asked>();
  private readonly vouchedOrigins = new Set<string>();

  constructor(private readonly enabled: boolean) {}

  /** The crawl will fetch `href` as a sitemap; `hostWide`: robots.txt or the user named it. */
  ask(href: string, hostWide: boolean, nesting = 0): void {
    const url = normalizeUrl(href);
    const key = url ?? href;
    const known = this.asked.get(key);
    // Reached twice (two indexes list it): the shallower finding counts.
    if (known && known.nesting <= nesting) return;
    this.asked.set(key, { hostWide: hostWide || (known?.hostWide ?? false), nesting });
    if (url && hostWide) this.vouchedOrigins.add(new URL(url).origin);
  }

  /** Is this fetched document (at its normalised URL) a sitemap to read? */
  matches(url: string, body: Buffer): boolean {
    return this.enabled && (this.asked.has(url) || isSitemapXml(body));
  }

  /** How deep in sitemap indexes `url` was found (see Asked.nesting). */
  nestingOf(url: string): number {
    return this.asked.get(url)?.nesting ?? RESUMED_NESTING;
  }

  /**
   * Reads a sitemap fetched from `url` (served from `finalUrl`); the child sitemaps of an index are
   * asked for with its scope, one level deeper. An index past MAX_SITEMAP_NESTING, or listing itself,
   * gives those children up (`sitemaps` no longer lists them) and says so in the diagnostics.
   */
  read(url: string, finalUrl: string, body: Buffer, mediaType: string | undefined): Sitemap {
    const asked = this.asked.get(url);
    const hostWide = asked?.hostWide ?? this.vouchedOrigins.has(new URL(url).origin);
    const nesting = asked?.nesting ?? RESUMED_NESTING;
    const sitemap = parseSitemap(body, { url: finalUrl, mediaType, hostWide });
    const self = new Set([url, normalizeUrl(finalUrl) ?? finalUrl]);
    const children = sitemap.sitemaps.filter((child) => !self.has(normalizeUrl(child.loc) ?? child.loc));
    if (children.length < sitemap.sitemaps.length) sitemap.diagnostics.push('the sitemap index lists itself: not read again');
    if (children.length > 0 && nesting + 1 > MAX_SITEMAP_NESTING) {
      sitemap.diagnostics.push(`sitemap index nested ${nesting + 1} deep (the limit is ${MAX_SITEMAP_NESTING}): its ${children.length} sitemap${children.length === 1 ? '' : 's'} not read`);
      sitemap.sitemaps = [];
      return sitemap;
    }
    sitemap.sitemaps = children;
    for (const child of children) this.ask(child.loc, hostWide, nesting + 1);
    return sitemap;
  }
}

/**
 * The sitemaps a crawl starts from: `--sitemap` URLs, and with `sitemaps` and no robots.txt each seed origin's
 * /sitemap.xml. With robots.txt, a seed origin's are read from it when the frontier has fetched it (`fromRobots`).
 */
export function sitemapsToRead(o: CrawlOptions, robots: boolean): { href: string; hostWide: boolean }[] {
  // A sitemap the user names vouches for its host, as one robots.txt names does.
  const out = (o.sitemapUrls ?? []).map((href) => ({ href, hostWide: true }));
  if (!o.sitemaps || robots) return out;
  for (const origin of seedOrigins(o)) out.push({ href: `${origin}/sitemap.xml`, hostWide: false });
  return out;
}

/** The origins of a crawl's seeds, whose sitemaps `crawl --sitemaps` reads. */
export function seedOrigins(o: CrawlOptions): Set<string> {
  return new Set(o.seeds.map((seed) => new URL(seed).origin));
}

/**
 * The sitemaps of a seed origin, read from its robots.txt once the frontier fetched it (its prerequisite,
 * stages/prerequisite.ts): the `Sitemap:` lines, else the /sitemap.xml convention. Each origin once a crawl.
 */
export class RobotsSitemaps {
  constructor(private readonly waiting: Set<string>) {}

  /** The sitemaps to read now that `origin`'s robots.txt answered (naming `named`): none when not a seed origin or read already. */
  take(origin: string, named: readonly string[]): { href: string; hostWide: boolean }[] {
    if (!this.waiting.delete(origin)) return [];
    return named.length ? named.map((href) => ({ href, hostWide: true })) : [{ href: `${origin}/sitemap.xml`, hostWide: false }];
  }
}
