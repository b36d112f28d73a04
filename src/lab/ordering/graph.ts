/**
 * The repository a virtual crawl runs over (seed 001: crawl once, then replay orderings offline):
 * pages with their text and out-links, and the page the crawl starts from. Every input adapter
 * (a directory of HTML files, the crawl archive) produces this shape.
 */
import { UserError } from '../../util/errors.ts';
import type { CrawledLink } from '../../frontier/order/policy.ts';

export interface RepositoryLink extends CrawledLink {}

export interface RepositoryPage {
  url: string;
  title?: string;
  text?: string;
  links: RepositoryLink[];
}

export interface RepositoryGraph {
  pages: RepositoryPage[];
  start: string;
}

/** A repository checked and indexed: each page's links restricted to pages of the repository. */
export interface IndexedRepository {
  pages: RepositoryPage[];
  index: Map<string, number>;
  start: number;
  /** Out-links to repository pages as page indexes, distinct, no self-links (for the metrics). */
  out: number[][];
  /** Each page's links to repository pages, with their anchor text: what the virtual crawler sees. */
  links: RepositoryLink[][];
  /** Links whose target is not in the repository (the virtual crawler cannot follow them). */
  externalLinks: number;
}

export function indexRepository(graph: RepositoryGraph): IndexedRepository {
  if (!graph || !Array.isArray(graph.pages) || graph.pages.length === 0) {
    throw new UserError('the repository has no pages: check the input directory');
  }
  const index = new Map<string, number>();
  graph.pages.forEach((p, i) => {
    if (typeof p?.url !== 'string' || !Array.isArray(p.links)) throw new UserError(`repository page ${i} lacks a url or a links array`);
    if (!index.has(p.url)) index.set(p.url, i);
  });
  const start = index.get(graph.start);
  if (start === undefined) throw new UserError(`the start page ${graph.start} is not in the repository`);
  let externalLinks = 0;
  const links: RepositoryLink[][] = [];
  const out = graph.pages.map((p, i) => {
    const targets = new Set<number>();
    const internal: RepositoryLink[] = [];
    for (const l of p.links) {
      const t = index.get(l.url);
      if (t === undefined) {
        externalLinks++;
        continue;
      }
      internal.push(l);
      if (t !== i) targets.add(t);
    }
    links.push(internal);
    return [...targets];
  });
  return { pages: graph.pages, index, start, out, links, externalLinks };
}
