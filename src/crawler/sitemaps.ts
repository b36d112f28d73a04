import { isSitemapXml, parseSitemap, type Sitemap } from '../extract/sitemap.ts';
import { normalizeUrl } from '../frontier/normalize.ts';
import type { RobotsCache } from '../fetch/robots.ts';
import type { CrawlOptions } from './options.ts';

/**
 * The sitemaps of one crawl: those it asked for, whether each vouches for its whole host (robots.txt
 * or the user named it, or a sitemap index that does listed it), and the reading of a fetched one.
 * One queued by a killed run comes back from the store as a plain URL: an XML sitemap is also known by
 * its root element, as RDF/XML is, and keeps the host-wide scope when robots.txt or the user vouched
 * for a sitemap of its origin (the index that listed it was read before the kill, so it is not asked for now).
 */
export class CrawlSitemaps {
  private readonly asked = new Map<string, boolean>();
  private readonly vouchedOrigins = new Set<string>();

  constructor(private readonly enabled: boolean) {}

  /** The crawl will fetch `href` as a sitemap; `hostWide`: robots.txt or the user named it. */
  ask(href: string, hostWide: boolean): void {
    const url = normalizeUrl(href);
    this.asked.set(url ?? href, hostWide);
    if (url && hostWide) this.vouchedOrigins.add(new URL(url).origin);
  }

  /** Is this fetched document (at its normalised URL) a sitemap to read? */
  matches(url: string, body: Buffer): boolean {
    return this.enabled && (this.asked.has(url) || isSitemapXml(body));
  }

  /** Reads a sitemap fetched from `url` (served from `finalUrl`); the child sitemaps of an index are asked for with its scope. */
  read(url: string, finalUrl: string, body: Buffer, mediaType: string | undefined): Sitemap {
    const hostWide = this.asked.get(url) ?? this.vouchedOrigins.has(new URL(url).origin);
    const sitemap = parseSitemap(body, { url: finalUrl, mediaType, hostWide });
    for (const child of sitemap.sitemaps) this.asked.set(normalizeUrl(child.loc) ?? child.loc, hostWide);
    return sitemap;
  }
}

/** The sitemaps a crawl starts from: `--sitemap` URLs, and with `sitemaps` each seed origin's (robots.txt's, else /sitemap.xml). */
export async function sitemapsToRead(o: CrawlOptions, robots: RobotsCache | undefined): Promise<{ href: string; hostWide: boolean }[]> {
  // A sitemap the user names vouches for its host, as one robots.txt names does.
  const out = (o.sitemapUrls ?? []).map((href) => ({ href, hostWide: true }));
  if (!o.sitemaps) return out;
  for (const origin of new Set(o.seeds.map((seed) => new URL(seed).origin))) {
    const named = robots ? await robots.sitemaps(origin + '/') : [];
    if (named.length) out.push(...named.map((href) => ({ href, hostWide: true })));
    else out.push({ href: `${origin}/sitemap.xml`, hostWide: false });
  }
  return out;
}
