import { compilePatterns, rejectReason, type FilterOptions } from '../frontier/filters.ts';
import { hostOf, normalizeUrl } from '../frontier/normalize.ts';
import { formatDuration } from '../util/units.ts';
import { DEFAULTS, type CrawlOptions } from './options.ts';

/** The filters a crawl applies, as the scope stage reads them. */
export function filtersOf(o: CrawlOptions): FilterOptions {
  return {
    maxDepth: o.depth ?? DEFAULTS.depth,
    include: compilePatterns(o.include, '--include'),
    exclude: compilePatterns(o.exclude, '--exclude'),
    domains: o.domains ?? [],
  };
}

/** Why a filter keeps a seed out, naming the flag as the user gave it; undefined when the seed is in scope. */
export function seedExclusion(seed: string, o: CrawlOptions, f: FilterOptions = filtersOf(o)): string | undefined {
  const url = normalizeUrl(seed);
  if (!url) return undefined;
  switch (rejectReason(url, hostOf(url), 0, f)) {
    case 'domain': return `${(o.domains ?? []).map((d) => `--domain ${d}`).join(', ')} excludes the seed ${url}`;
    case 'include': return `no --include pattern (${(o.include ?? []).join(', ')}) matches the seed ${url}`;
    case 'exclude': return `--exclude ${o.exclude?.find((_p, i) => f.exclude[i].test(url))} excludes the seed ${url}`;
    default: return undefined;
  }
}

/**
 * What the crawl will and will not take, said before it starts (on stderr): a filter that excludes a
 * seed otherwise shows only as "0 documents, frontier exhausted".
 */
export function scopeBanner(o: CrawlOptions): string {
  const f = filtersOf(o);
  const list = (xs: string[] | undefined) => (xs?.length ? xs.join(', ') : 'any');
  const lines = [
    `crawl scope: depth ${f.maxDepth}${o.vocabularies === false ? '' : ' (vocabularies at any depth)'}; domains ${list(o.domains)}; include ${list(o.include)}; exclude ${o.exclude?.length ? o.exclude.join(', ') : 'none'}`,
    `politeness: robots.txt ${o.robots === false ? 'ignored (--no-robots)' : 'obeyed'}; delay ${formatDuration(o.delayMs ?? DEFAULTS.delayMs)} per host, ${o.perHost ?? DEFAULTS.perHost} per host at once, ${o.concurrency ?? DEFAULTS.concurrency} in all; private addresses ${o.allowPrivate ? 'allowed' : 'refused (--allow-private)'}`,
  ];
  // A query-driven crawl follows what its query chooses, not the documents' links: say so before it starts.
  if (o.follow !== undefined) lines.push(`query-driven: following only the IRIs the --follow query binds over ${o.followArchive ? 'the archive and ' : ''}what this crawl learns (queries run: ${o.followBatch ?? 'auto'})`);
  if (o.answer !== undefined) lines.push('query-driven: link traversal for --answer (starts from the query\'s IRIs; follows the IRIs of triples matching its patterns, best first)');
  if (o.until !== undefined) lines.push('query-driven: stops once the --until question is answered');
  for (const seed of o.seeds) {
    const why = seedExclusion(seed, o, f);
    if (why) lines.push(`warning: ${why}: it will not be crawled`);
  }
  return lines.join('\n') + '\n';
}
