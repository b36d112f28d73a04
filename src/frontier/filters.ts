import { UserError } from '../util/errors.ts';
import type { Reason } from '../vocabulary/reasons.ts';
import { isUrlTooLong, MAX_URL_LENGTH } from './normalize.ts';

/** Seed 003's filtering conditions, applied to every candidate URL before it is queued. */
export interface FilterOptions {
  maxDepth: number;
  include: RegExp[];
  exclude: RegExp[];
  /** Host patterns: `example.org` (that host and its subdomains) or `*.example.org`. */
  domains: string[];
  /** Longer URLs are not queued (default MAX_URL_LENGTH, 2,083 characters). */
  maxUrlLength?: number;
}

export type Rejection = 'url-too-long' | 'depth' | 'include' | 'exclude' | 'domain';

/** The crawl log's reason for a rejection. */
export function rejectionReason(rejection: Rejection): Reason {
  return rejection === 'url-too-long' ? rejection : `filtered-${rejection}`;
}

export function compilePatterns(patterns: string[] | undefined, flag: string): RegExp[] {
  return (patterns ?? []).map((p) => {
    try {
      return new RegExp(p);
    } catch (e) {
      throw new UserError(`${flag} '${p}' is not a valid regular expression: ${(e as Error).message}`);
    }
  });
}

function hostMatches(host: string, pattern: string): boolean {
  const bare = host.replace(/:\d+$/, '').toLowerCase();
  const p = pattern.toLowerCase().replace(/^\*\./, '');
  return bare === p || bare.endsWith('.' + p);
}

/** Returns why the URL is rejected, or undefined when it passes. Vocabulary links skip the depth test. */
export function rejectReason(url: string, host: string, depth: number, f: FilterOptions, ignoreDepth = false): Rejection | undefined {
  // First: a trap's URL grows without end, and the patterns below would be run over all of it.
  if (isUrlTooLong(url, f.maxUrlLength ?? MAX_URL_LENGTH)) return 'url-too-long';
  if (!ignoreDepth && depth > f.maxDepth) return 'depth';
  if (f.domains.length > 0 && !f.domains.some((d) => hostMatches(host, d))) return 'domain';
  if (f.include.length > 0 && !f.include.some((r) => r.test(url))) return 'include';
  if (f.exclude.some((r) => r.test(url))) return 'exclude';
  return undefined;
}

/** Media-type filter (--mime): exact types or `type/*`. Empty means everything. */
export function mimeAccepted(mediaType: string, accepted: string[]): boolean {
  if (accepted.length === 0) return true;
  return accepted.some((a) => (a.endsWith('/*') ? mediaType.startsWith(a.slice(0, -1)) : a === mediaType));
}
