/**
 * A virtual crawl (seed 001): replay a crawl over the repository with an ordering policy driving
 * the same PriorityFrontier the live crawler uses, and record the order pages are visited in.
 * With a buffer of B URLs the frontier is bounded: when it overflows, its lowest-priority URL is
 * forgotten (`--model frontier`, the lab's older reading of the limited buffer; seed 001's own model,
 * B pages kept, is scored in run.ts through `onPage`) and comes back only if a later page links to it again.
 */
import { PriorityFrontier } from '../../frontier/order/priority-frontier.ts';
import type { OrderingPolicy } from '../../frontier/order/policy.ts';
import type { IndexedRepository } from './graph.ts';
import { pageText } from './importance.ts';

export interface VirtualCrawlOptions {
  /** Most URLs the frontier may hold (`--model frontier`); unbounded when omitted. */
  buffer?: number;
  /** Called after each page is crawled and the policy has seen its links (the page-buffer model scores here). */
  onPage?: (index: number) => void;
}

export interface VirtualCrawl {
  ordering: string;
  /** Page indexes in the order they were crawled. */
  order: Int32Array;
  /** URLs forgotten because the buffer was full. */
  dropped: number;
}

export function virtualCrawl(repo: IndexedRepository, policy: OrderingPolicy, options: VirtualCrawlOptions = {}): VirtualCrawl {
  const n = repo.pages.length;
  const frontier = new PriorityFrontier(policy);
  const crawled = new Uint8Array(n);
  const order = new Int32Array(n);
  let count = 0;
  let dropped = 0;
  frontier.add(repo.pages[repo.start].url);
  for (let url = frontier.pop(); url !== undefined; url = frontier.pop()) {
    const i = repo.index.get(url)!;
    crawled[i] = 1;
    order[count++] = i;
    const page = repo.pages[i];
    const links = repo.links[i];
    policy.onPageCrawled({ url, links, text: pageText(page) });
    options.onPage?.(i);
    for (const link of links) {
      if (crawled[repo.index.get(link.url)!] || !frontier.add(link.url)) continue;
      if (options.buffer !== undefined && frontier.size > options.buffer) {
        frontier.dropLowest();
        dropped++;
      }
    }
  }
  return { ordering: policy.name, order: order.slice(0, count), dropped };
}
