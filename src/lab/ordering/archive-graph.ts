/**
 * The crawl archive as a repository for the ordering lab (`lab ordering --data DIR`): every page
 * datamonitor archived, its links and text extracted again from the archived bytes, starting from
 * the first URL the crawl fetched (its seed).
 */
import { UserError } from '../../util/errors.ts';
import { withStore } from '../../store/index.ts';
import { latestResponses, replayDocument } from '../../archive/replay.ts';
import { normalizeUrl } from '../../frontier/normalize.ts';
import { documentLinks } from '../../extract/links.ts';
import type { RepositoryGraph, RepositoryPage } from './graph.ts';

export async function loadArchiveGraph(dataDir: string): Promise<RepositoryGraph> {
  return withStore(dataDir, undefined, async (store) => {
    const entries = await latestResponses(store);
    if (entries.length === 0) throw new UserError(`the archive in '${dataDir}' holds no pages yet`);
    entries.sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
    const pages: RepositoryPage[] = [];
    for (const e of entries) {
      const { url, result } = await replayDocument(dataDir, e);
      // One link per target; an HTML anchor's text and context win over the bare IRI in the data.
      const links = new Map<string, { url: string; anchorText?: string; context?: string }>();
      // What the crawl would follow: no vocabularies, nothing the page said not to follow.
      const followed = documentLinks(result).filter((l) => l.kind !== 'vocabulary' && !l.nofollow);
      for (const l of [...followed.filter((l) => l.kind !== 'iri'), ...followed.filter((l) => l.kind === 'iri')]) {
        const u = normalizeUrl(l.url);
        if (u && !links.has(u)) links.set(u, { url: u, anchorText: l.anchorText, context: l.context });
      }
      pages.push({ url: normalizeUrl(url) ?? url, title: result.title, text: result.text, links: [...links.values()] });
    }
    return { pages, start: pages[0].url };
  }, { mustExist: true });
}
