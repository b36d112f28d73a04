import zlib from 'node:zlib';
import { Parser } from 'htmlparser2';

/**
 * Sitemaps (sitemaps.org protocol 0.9): the URLs a site lists for crawlers, with when each last
 * changed. XML `<urlset>` and `<sitemapindex>` (any namespace, read by local name), plain-text
 * sitemaps (one URL a line), either gzipped. A sitemap may only list URLs under its own directory
 * (protocol, "Sitemap file location"), unless robots.txt or the user named it, which vouches for the host.
 */

export interface SitemapUrl {
  loc: string;
  /** W3C datetime of the last change, as epoch ms, when given and valid. */
  lastmod?: number;
}

export interface Sitemap {
  urls: SitemapUrl[];
  /** Child sitemaps of a sitemap index. */
  sitemaps: SitemapUrl[];
  /** What was dropped and why (outside the sitemap's scope, invalid, over the limits). */
  diagnostics: string[];
}

export interface SitemapOptions {
  /** Where the sitemap was fetched from (its scope and the base of nothing: locs must be absolute). */
  url: string;
  mediaType?: string;
  /** robots.txt or the user named it: any URL of the same origin is in scope (not only its directory). */
  hostWide?: boolean;
  /** The protocol's limits: 50,000 URLs and 50 MB uncompressed per sitemap. */
  maxUrls?: number;
  maxBytes?: number;
}

const MAX_URLS = 50_000;

/** Whether a body is an XML sitemap or sitemap index (its first element, any prefix), gzipped or not. */
export function isSitemapXml(body: Buffer): boolean {
  let head = body.subarray(0, 2048);
  if (head[0] === 0x1f && head[1] === 0x8b) {
    try {
      // The first 4 KiB of the stream are enough: a truncated stream inflates as far as it goes.
      head = zlib.gunzipSync(body.subarray(0, 4096), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).subarray(0, 2048);
    } catch {
      return false;
    }
  }
  const text = head.toString('utf8').replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, '');
  return /^\s*<(?:[\w.-]+:)?(?:urlset|sitemapindex)[\s>]/.test(text);
}
const MAX_BYTES = 50 * 1024 * 1024;

export function parseSitemap(body: Buffer, o: SitemapOptions): Sitemap {
  const out: Sitemap = { urls: [], sitemaps: [], diagnostics: [] };
  const maxBytes = o.maxBytes ?? MAX_BYTES;
  let bytes = body;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = zlib.gunzipSync(bytes, { maxOutputLength: maxBytes });
    } catch (e) {
      out.diagnostics.push(`sitemap not read: gzip ${(e as Error).message}`);
      return out;
    }
  } else if (bytes.length > maxBytes) {
    out.diagnostics.push(`sitemap cut at ${maxBytes} bytes (the protocol's limit)`);
    bytes = bytes.subarray(0, maxBytes);
  }
  const text = bytes.toString('utf8');
  const scope = scopeOf(o.url, o.hostWide);
  const add = (list: SitemapUrl[], loc: string, lastmod: string | undefined) => {
    let url: URL;
    try {
      url = new URL(loc.trim());
    } catch {
      if (out.diagnostics.length < 20) out.diagnostics.push(`not a URL: ${JSON.stringify(loc.trim().slice(0, 200))}`);
      return;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.href.startsWith(scope)) {
      if (out.diagnostics.length < 20) out.diagnostics.push(`outside the sitemap's scope ${scope}: ${url.href}`);
      return;
    }
    if (out.urls.length + out.sitemaps.length >= (o.maxUrls ?? MAX_URLS)) {
      if (!out.diagnostics.some((d) => d.startsWith('more than'))) out.diagnostics.push(`more than ${o.maxUrls ?? MAX_URLS} URLs: the rest dropped (the protocol's limit)`);
      return;
    }
    const t = lastmod === undefined ? NaN : Date.parse(lastmod.trim());
    list.push(Number.isNaN(t) ? { loc: url.href } : { loc: url.href, lastmod: t });
  };
  if (/^\s*</.test(text) || /xml/.test(o.mediaType ?? '')) readXml(text, add, out);
  else for (const line of text.split(/\r?\n/)) if (line.trim()) add(out.urls, line, undefined);
  return out;
}

/** Reads `<url>`/`<sitemap>` entries and their `<loc>`/`<lastmod>` by local name, whatever the prefix. */
function readXml(text: string, add: (list: SitemapUrl[], loc: string, lastmod: string | undefined) => void, out: Sitemap): void {
  let entry: 'url' | 'sitemap' | undefined;
  let field: 'loc' | 'lastmod' | undefined;
  let loc = '';
  let lastmod: string | undefined;
  const local = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();
  const parser = new Parser(
    {
      onopentag(name) {
        const n = local(name);
        if (n === 'url' || n === 'sitemap') {
          entry = n;
          loc = '';
          lastmod = undefined;
        } else if (entry && (n === 'loc' || n === 'lastmod')) field = n;
      },
      ontext(t) {
        if (field === 'loc') loc += t;
        else if (field === 'lastmod') lastmod = (lastmod ?? '') + t;
      },
      onclosetag(name) {
        const n = local(name);
        if (n === field) field = undefined;
        else if (n === entry) {
          if (loc.trim()) add(entry === 'url' ? out.urls : out.sitemaps, loc, lastmod);
          entry = undefined;
        }
      },
    },
    { xmlMode: true }, // entities (sitemaps must write & as &amp;) are decoded by the parser
  );
  parser.end(text);
}

/** A sitemap at http://h/a/b/sitemap.xml covers http://h/a/b/…; one named by robots.txt or the user covers http://h/…. */
function scopeOf(sitemapUrl: string, hostWide = false): string {
  const u = new URL(sitemapUrl);
  return hostWide ? `${u.origin}/` : `${u.origin}${u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1)}`;
}
