import { USER_AGENT_TOKEN } from '../fetch/accept.ts';

/** What a page asks of robots (META robots, X-Robots-Tag): noindex = keep bytes, store no triples; nofollow = follow no links. */
export interface RobotsDirectives {
  noindex: boolean;
  nofollow: boolean;
}

/** Reads one list of directives ("noindex, nofollow", "none") into `into`. */
export function readRobotsDirectives(content: string, into: RobotsDirectives): void {
  for (const directive of content.toLowerCase().split(/[\s,]+/)) {
    if (directive === 'noindex' || directive === 'none') into.noindex = true;
    if (directive === 'nofollow' || directive === 'none') into.nofollow = true;
  }
}

/** META names whose content speaks to us: every robot's, and ours by name (as `googlebot` is Google's). */
export function isRobotsMetaName(name: string): boolean {
  return name === 'robots' || name === USER_AGENT_TOKEN;
}

/** Directives that take a value after a colon, so that "max-snippet: 20" is not read as a user agent. */
const VALUED = new Set(['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview']);

/**
 * The X-Robots-Tag header (all its values joined by commas): directives for every robot, and those
 * after our own user-agent token ("datamonitor: nofollow"); those after another agent's name
 * ("googlebot: noindex") are that agent's business.
 */
export function xRobotsTag(header: string | undefined): RobotsDirectives {
  const out = { noindex: false, nofollow: false };
  if (!header) return out;
  let agent: string | undefined;
  for (const raw of header.split(',')) {
    let token = raw.trim();
    const prefixed = /^([\w.-]+)\s*:\s*(.*)$/.exec(token);
    if (prefixed && !VALUED.has(prefixed[1].toLowerCase())) {
      agent = prefixed[1].toLowerCase();
      token = prefixed[2];
    }
    if (agent === undefined || agent === USER_AGENT_TOKEN) readRobotsDirectives(token, out);
  }
  return out;
}
