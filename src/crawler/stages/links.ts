import type { Frontier } from '../../frontier/types.ts';
import { normalizeUrl } from '../../frontier/normalize.ts';
import type { CrawlSitemaps } from '../sitemaps.ts';
import type { ScopeStage } from './scope.ts';
import type { Job, Next, Stage } from './types.ts';

export interface LinksStageDeps {
  scope: Pick<ScopeStage, 'offer' | 'offerRequisite'>;
  /** An importance ordering learns the link graph through it (onPageCrawled). */
  frontier: Frontier;
  sitemaps: CrawlSitemaps;
  /** Follow no links (the re-crawl downloader): sitemaps are still read for their lastmod hints. */
  noFollow: boolean;
  /** Follow vocabulary links whatever the depth (`--no-vocabularies` turns it off, and drops them). */
  vocabularies: boolean;
  counts: { sitemaps: { read: number; urls: number } };
  /** Fetch what each page loads to be shown (--page-requisites). */
  pageRequisites?: boolean;
}

/** What a captured document leads to: its links and sitemap entries, offered to the scope; an importance ordering learns the link graph. */
export class LinksStage implements Stage {
  readonly name = 'links';
  constructor(private readonly d: LinksStageDeps) {}

  shouldProcess(job: Job): boolean {
    return job.doc !== undefined;
  }

  async process(job: Job): Promise<Next> {
    const doc = job.doc!;
    const { entry } = job;
    // First, so that a style sheet the page also names in a <link> triple is queued as what it is.
    // Even with noFollow (a re-crawl cycle) and META nofollow: they are the page's parts, not links.
    if (this.d.pageRequisites && doc.requisites && entry.requisite !== 2) {
      const level = entry.requisite ? 2 : 1;
      for (const url of doc.requisites) this.d.scope.offerRequisite(url, entry.depth, level);
    }
    // A requisite is no page: it has no links, is no sitemap, and is not in the link graph.
    if (entry.requisite) return 'continue';
    const onPage = this.d.frontier.onPageCrawled?.bind(this.d.frontier);
    if (onPage) {
      const links = [];
      for (const l of doc.links) {
        const u = normalizeUrl(l.url);
        if (u) links.push({ url: u, anchorText: l.anchorText, context: l.context });
      }
      onPage({ url: entry.url, links, text: doc.text });
    }
    const body = job.outcome?.response?.body;
    if (doc.status === 200 && body && this.d.sitemaps.matches(entry.url, body)) {
      const sm = this.d.sitemaps.read(entry.url, doc.finalUrl ?? entry.url, body, doc.mediaType);
      doc.sitemap = sm;
      this.d.counts.sitemaps.read++;
      this.d.counts.sitemaps.urls += sm.urls.length;
      // A re-crawl cycle (noFollow) only wants the lastmod hints: it schedules the listed URLs itself.
      if (!this.d.noFollow) for (const u of [...sm.urls, ...sm.sitemaps]) this.d.scope.offer(u.loc, entry.depth, false);
    }
    if (this.d.noFollow) return 'continue';
    for (const link of doc.links) {
      if (link.nofollow === true) continue;
      if (link.kind === 'vocabulary' && !this.d.vocabularies) continue;
      this.d.scope.offer(link.url, entry.depth + 1, link.kind === 'vocabulary');
    }
    return 'continue';
  }
}
