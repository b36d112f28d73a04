import { cssReferences, httpUrl } from '../css.ts';
import { SCAN_LIMITS, type ScanResult } from './scanner.ts';

/** <link rel> tokens whose target a browser loads with the page (style sheets, icons, what it preloads). */
const REQUISITE_RELS = new Set(['stylesheet', 'icon', 'apple-touch-icon', 'apple-touch-icon-precomposed', 'mask-icon', 'preload', 'modulepreload']);

/**
 * The page requisites of a scanned page, as absolute http(s) URLs, each once, in document order: what
 * `--page-requisites` fetches so that a replay of the page shows it whole (wget -p, Heritrix's embeds).
 * <link rel="stylesheet"> and icons, img/picture sources (srcset too), scripts, media and their
 * posters, and what inline style sheets load. Bounded by SCAN_LIMITS.maxRequisites.
 */
export function pageRequisites(scan: ScanResult): string[] {
  const out = new Set<string>();
  const add = (href: string, base: string | undefined): void => {
    if (out.size >= SCAN_LIMITS.maxRequisites) return;
    const url = httpUrl(href, base ?? scan.base);
    if (url) out.add(url);
  };
  for (const link of scan.linkElements) {
    if (link.rel && link.rel.toLowerCase().split(/\s+/).some((token) => REQUISITE_RELS.has(token))) add(link.href, link.base);
  }
  for (const r of scan.requisites) add(r.href, r.base);
  for (const style of scan.styles) for (const ref of cssReferences(style.css)) add(ref, style.base);
  return [...out];
}
