/**
 * A directory of HTML files read as the website it would be when served under `base`: each file a
 * page (its title, its text, its links with their anchor text and the words around them), relative
 * links resolved as a browser would. The repository for a virtual crawl of a real site.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Parser } from 'htmlparser2';
import { UserError } from '../../util/errors.ts';
import type { RepositoryGraph, RepositoryLink, RepositoryPage } from './graph.ts';

/** Words of context kept on each side of a link (about 20 in all, as asked of the similarity metric). */
const CONTEXT_WORDS = 10;
const SKIPPED = new Set(['script', 'style', 'noscript', 'template']);

export interface SiteLoadOptions {
  /** The URL the directory is served at; http://site.local/ by default. */
  base?: string;
  /** The start page, relative to base; index.html by default. */
  start?: string;
}

async function htmlFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && /\.x?html?$/i.test(entry.name)) found.push(full);
    }
  };
  await walk(root);
  return found.sort();
}

function resolveLink(href: string, base: string): string | undefined {
  try {
    const u = new URL(href.trim(), base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    u.hash = '';
    return u.href;
  } catch {
    return undefined;
  }
}

/** One HTML page: title, text, and links with anchor text and surrounding words. */
export function parsePage(html: string, url: string): RepositoryPage {
  const words: string[] = [];
  const titleParts: string[] = [];
  const anchors: { url: string; from: number; to: number; text: string[] }[] = [];
  let open: (typeof anchors)[number] | undefined;
  let skipping = 0;
  let inTitle = false;
  let base = url;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (SKIPPED.has(name)) skipping++;
        else if (name === 'title') inTitle = true;
        else if (name === 'base' && attrs.href) base = resolveLink(attrs.href, url) ?? base;
        else if (name === 'a' && attrs.href !== undefined) {
          const target = resolveLink(attrs.href, base);
          open = target ? { url: target, from: words.length, to: words.length, text: [] } : undefined;
        }
      },
      ontext(text) {
        if (skipping > 0) return;
        if (inTitle) {
          titleParts.push(text);
          return;
        }
        for (const w of text.split(/\s+/)) {
          if (!w) continue;
          words.push(w);
          open?.text.push(w);
        }
      },
      onclosetag(name) {
        if (SKIPPED.has(name)) skipping = Math.max(0, skipping - 1);
        else if (name === 'title') inTitle = false;
        else if (name === 'a' && open) {
          open.to = words.length;
          anchors.push(open);
          open = undefined;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  const links: RepositoryLink[] = anchors.map((a) => ({
    url: a.url,
    anchorText: a.text.join(' '),
    context: [...words.slice(Math.max(0, a.from - CONTEXT_WORDS), a.from), ...words.slice(a.to, a.to + CONTEXT_WORDS)].join(' '),
  }));
  const title = titleParts.join('').replace(/\s+/g, ' ').trim();
  return { url, ...(title ? { title } : {}), text: words.join(' '), links };
}

/** Every HTML file under `root` parsed as the page at its path under `baseUrl` (which ends in /). */
export async function loadPages(root: string, baseUrl: string, onPage?: (page: RepositoryPage, html: string) => RepositoryPage): Promise<RepositoryPage[]> {
  const pages: RepositoryPage[] = [];
  for (const file of await htmlFiles(root)) {
    const rel = path.relative(root, file).split(path.sep).map(encodeURIComponent).join('/');
    const html = await readFile(file, 'utf8');
    const page = parsePage(html, new URL(rel, baseUrl).href);
    pages.push(onPage ? onPage(page, html) : page);
  }
  return pages;
}

export async function loadSiteGraph(dir: string, options: SiteLoadOptions = {}): Promise<RepositoryGraph> {
  const root = path.resolve(dir);
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) throw new UserError(`--site ${dir} is not a directory of HTML files`);
  const base = options.base ?? 'http://site.local/';
  if (!resolveLink(base, base)) throw new UserError(`--base ${base} is not an http(s) URL`);
  const baseUrl = base.endsWith('/') ? base : `${base}/`;
  const pages = await loadPages(root, baseUrl);
  if (pages.length === 0) throw new UserError(`no .html files under ${dir}`);
  const start = new URL(options.start ?? 'index.html', baseUrl).href;
  if (!pages.some((p) => p.url === start)) {
    throw new UserError(`the start page ${options.start ?? 'index.html'} is not in ${dir}: give --start PAGE`);
  }
  return { pages, start };
}
