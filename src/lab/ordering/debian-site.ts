/**
 * A large real site for the URL-ordering lab (Cho, Garcia-Molina & Page crawled 179,000 Stanford
 * pages) and a real multi-host URL trace for the caching lab (Broder, Najork & Wiener): Debian
 * documentation packages unpacked as a Debian machine's documentation tree, each package's files
 * served under its own virtual host (http://PKG.docs.local/usr/share/doc/...), plus one generated
 * portal page (http://docs.local/index.html) linking each package's HTML roots, as dwww's index
 * does. Every other page and link is the packages' own.
 *
 * One host per package rather than one for all: each package is a separately authored site whose
 * links stay within itself, so its host is the unit a crawler's politeness and a seen-URL cache's
 * locality see; served under one host the trace would be a one-host trace, which the caching
 * claims cannot be judged on.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../util/errors.ts';
import { dpkgDeb, unpackDeb } from '../../util/deb.ts';
import { createOrderingPolicy } from '../../frontier/order/policies.ts';
import { indexRepository, type RepositoryGraph, type RepositoryPage } from './graph.ts';
import { loadPages, parsePage } from './site-loader.ts';
import { virtualCrawl } from './virtual-crawl.ts';

export const PORTAL_URL = 'http://docs.local/index.html';
export const MANIFEST = 'site.json';
/** Where `lab site` writes the breadth-first link stream unless told otherwise. */
export const TRACE_FILE = 'bfs.urltrace.gz';

export interface DebianSitePackage {
  name: string;
  version: string;
  /** The unpacked package, relative to the site directory. */
  dir: string;
  /** The package's virtual host. */
  base: string;
  /** The URLs the portal links: the package's HTML roots. */
  roots: string[];
}

export interface DebianSiteManifest {
  portal: string;
  packages: DebianSitePackage[];
}

/**
 * The index.html files under usr/share/doc a reader could not reach from a higher one: those in a
 * directory no chosen index above it links into (lazarus-doc's start page links the online LCL
 * docs, not the packaged lcl/index.html), directory by directory from the top.
 */
function topIndexes(unpacked: string): string[] {
  const found: string[] = [];
  // Each chosen index's link targets, as paths inside the package.
  const targets: string[][] = [];
  const probe = 'http://package.local/';
  const covered = (dir: string) => {
    const rel = `/${path.relative(unpacked, dir).split(path.sep).join('/')}/`;
    return found.some((f, i) => rel.startsWith(`/${path.relative(unpacked, path.dirname(f)).split(path.sep).join('/')}/`) && targets[i]!.some((t) => {
      // Covered when a link goes into this directory or into a directory between the index and it.
      const tDir = t.slice(0, t.lastIndexOf('/') + 1);
      return rel.startsWith(tDir) && tDir.length > path.relative(unpacked, path.dirname(f)).length + 2;
    }));
  };
  const walk = (d: string): void => {
    const entries = fs.readdirSync(d, { withFileTypes: true });
    if (entries.some((e) => e.isFile() && e.name === 'index.html') && !covered(d)) {
      const file = path.join(d, 'index.html');
      const url = new URL(path.relative(unpacked, file).split(path.sep).map(encodeURIComponent).join('/'), probe).href;
      found.push(file);
      targets.push(parsePage(fs.readFileSync(file, 'utf8'), url).links.filter((l) => l.url.startsWith(probe)).map((l) => decodeURIComponent(new URL(l.url).pathname)));
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) if (e.isDirectory()) walk(path.join(d, e.name));
  };
  const docs = path.join(unpacked, 'usr/share/doc');
  if (fs.existsSync(docs)) walk(docs);
  return found;
}

/** The doc-base `Index:` files of an unpacked package (its registered HTML entry points). */
function docBaseIndexes(unpacked: string): string[] {
  const dir = path.join(unpacked, 'usr/share/doc-base');
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const f of fs.readdirSync(dir).sort()) {
    for (const m of fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/^Index:\s*(\S+)/gm)) out.push(path.join(unpacked, m[1]!));
  }
  return out;
}

/**
 * A package's HTML roots: the topmost index.html files under usr/share/doc and the doc-base
 * entry points not already below one; a root whose file is byte-identical to an earlier root's is
 * a second copy of the same tree (vtk9-doc ships html/ and doxygen/html/) and is left out.
 */
function htmlRoots(unpacked: string): string[] {
  const tops = topIndexes(unpacked);
  const under = (f: string) => tops.some((t) => f.startsWith(path.dirname(t) + path.sep));
  const all = [...tops, ...docBaseIndexes(unpacked).filter((f) => !under(f) && fs.statSync(f, { throwIfNoEntry: false })?.isFile())];
  const seen = new Set<string>();
  return all.filter((f) => {
    const h = createHash('sha256').update(fs.readFileSync(f)).digest('hex');
    if (seen.has(h)) return false;
    seen.add(h);
    return true;
  });
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export function portalHtml(packages: DebianSitePackage[]): string {
  const items = packages.map((p) => `<h2>${escapeHtml(p.name)} ${escapeHtml(p.version)}</h2>\n<ul>\n${p.roots.map((r) => `<li><a href="${escapeHtml(r)}">${escapeHtml(new URL(r).pathname)}</a></li>`).join('\n')}\n</ul>`);
  return `<!DOCTYPE html>\n<html><head><title>Documentation on this system</title></head>\n<body>\n<h1>Documentation on this system</h1>\n${items.join('\n')}\n</body></html>\n`;
}

/** Unpacks `debs` into `out` (one directory per package), chooses their HTML roots, writes the portal and the manifest. */
export function buildDebianSite(debs: string[], out: string, progress: (text: string) => void = () => {}): DebianSiteManifest {
  if (debs.length === 0) throw new UserError('--debian needs at least one .deb file');
  if (fs.existsSync(out) && fs.readdirSync(out).length > 0) throw new UserError(`--out ${out} exists and is not empty: give a new directory`);
  const packages: DebianSitePackage[] = [];
  const meta = debs.map((deb) => {
    if (!fs.statSync(deb, { throwIfNoEntry: false })?.isFile()) throw new UserError(`${deb}: no such file (give .deb files)`);
    const [name, version] = dpkgDeb(['--field', deb, 'Package', 'Version'], deb).trim().split('\n').map((l) => l.replace(/^\w+:\s*/, ''));
    if (!name || !/^[a-z0-9][a-z0-9+.-]+$/.test(name)) throw new UserError(`${deb} is not a .deb package: it has no Package field`);
    return { deb, name, version: version ?? '' };
  });
  const names = meta.map((m) => m.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new UserError(`package ${twice} is given twice`);
  fs.mkdirSync(out, { recursive: true });
  for (const { deb, name, version } of meta) {
    progress(`unpacking ${name}`);
    const dir = path.join(out, name);
    unpackDeb(deb, dir);
    const base = `http://${name}.docs.local/`;
    const roots = htmlRoots(dir).map((f) => new URL(path.relative(dir, f).split(path.sep).map(encodeURIComponent).join('/'), base).href);
    if (roots.length === 0) throw new UserError(`${deb}: no HTML documentation under usr/share/doc (no index.html, no doc-base Index)`);
    packages.push({ name, version, dir: name, base, roots });
  }
  const manifest: DebianSiteManifest = { portal: PORTAL_URL, packages };
  fs.writeFileSync(path.join(out, 'index.html'), portalHtml(packages));
  fs.writeFileSync(path.join(out, MANIFEST), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}

export interface DebianSite {
  graph: RepositoryGraph;
  manifest: DebianSiteManifest;
  /** HTML files read (the portal included). */
  files: number;
  /** Pages that are a redirect (meta refresh) to another page, among those kept. */
  redirects: number;
  /** HTML files no link path from the portal reaches (left out: no crawl would see them). */
  unreachable: number;
}

export function readManifest(dir: string): DebianSiteManifest {
  const file = path.join(dir, MANIFEST);
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UserError(`--large-site ${dir} is not a directory: build one with \`datamonitor lab site --debian PKG.deb… --out ${dir}\``);
  if (!fs.existsSync(file)) throw new UserError(`${dir} has no ${MANIFEST}: it is not a site built by \`datamonitor lab site --debian PKG.deb… --out DIR\``);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as DebianSiteManifest;
}

const REFRESH = /<meta[^>]+http-equiv\s*=\s*["']?refresh/i;

/**
 * The site as the portal's crawl would find it: the pages reachable from the portal by links.
 * `slim` is called on each page as it is read, so a caller can drop what it will not use before the
 * next 100,000 pages are read.
 */
export async function loadDebianSite(dir: string, slim?: (page: RepositoryPage) => RepositoryPage): Promise<DebianSite> {
  const manifest = readManifest(dir);
  const redirect = new Set<string>();
  // Most link targets recur across pages (a navigation bar on each page): one copy of each URL,
  // not one per link, is what lets 100,000 pages fit in a few GB.
  const strings = new Map<string, string>();
  const intern = (t: string) => {
    const known = strings.get(t);
    if (known !== undefined) return known;
    strings.set(t, t);
    return t;
  };
  const pages: RepositoryPage[] = [parsePage(fs.readFileSync(path.join(dir, 'index.html'), 'utf8'), manifest.portal)];
  for (const p of manifest.packages) {
    pages.push(
      ...(await loadPages(path.join(dir, p.dir), p.base, (page, html) => {
        if (REFRESH.test(html.slice(0, 4096))) redirect.add(page.url);
        for (const l of page.links) l.url = intern(l.url);
        return slim ? slim(page) : page;
      })),
    );
  }
  const index = new Map(pages.map((p, i) => [p.url, i]));
  const reached = new Uint8Array(pages.length);
  reached[0] = 1;
  const queue = [0];
  for (let q = 0; q < queue.length; q++) {
    for (const l of pages[queue[q]!]!.links) {
      const t = index.get(l.url);
      if (t !== undefined && !reached[t]) {
        reached[t] = 1;
        queue.push(t);
      }
    }
  }
  const kept = pages.filter((_, i) => reached[i]);
  return { graph: { pages: kept, start: manifest.portal }, manifest, files: pages.length, redirects: kept.filter((p) => redirect.has(p.url)).length, unreachable: pages.length - kept.length };
}

/**
 * The URL stream a seen-URL test receives during a breadth-first crawl of `graph` (Broder et al.'s
 * trace): each crawled page's extracted links, every one (repeats, self-links and links leaving the
 * site included), in the order the pages are crawled.
 */
export function* bfsLinkStream(graph: RepositoryGraph): Generator<string> {
  const repo = indexRepository(graph);
  const { order } = virtualCrawl(repo, createOrderingPolicy('bfs'));
  for (const i of order) for (const l of graph.pages[i]!.links) yield l.url;
}
