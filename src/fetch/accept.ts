/** Default request identity: an Accept header that prefers RDF, and the User-Agent. */
import { readFileSync } from 'node:fs';

/**
 * RDF serialisations first (Turtle and the line-based formats at 1.0, then RDF/XML and JSON-LD),
 * HTML and XHTML below them (they may embed RDFa/JSON-LD), anything else last.
 */
export const DEFAULT_ACCEPT = [
  'text/turtle',
  'application/n-triples',
  'application/n-quads',
  'application/trig',
  'application/rdf+xml;q=0.9',
  'application/ld+json;q=0.9',
  'text/n3;q=0.8',
  'application/xhtml+xml;q=0.5',
  'text/html;q=0.4',
  '*/*;q=0.1',
].join(', ');

/** Accept of a robots.txt request: RFC 9309 §2.3 defines it as text/plain; the RDF preferences would only invite a 406 or a wrong representation. */
export const ROBOTS_ACCEPT = 'text/plain';

/** The robots.txt product token: what robots.txt groups name us by. */
export const USER_AGENT_TOKEN = 'datamonitor';

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export const VERSION = packageVersion();

/** `datamonitor/<version> (+<contact URL>)`; without a contact URL just `datamonitor/<version>`. */
export function buildUserAgent(contactUrl?: string, version: string = VERSION): string {
  const base = `${USER_AGENT_TOKEN}/${version}`;
  return contactUrl ? `${base} (+${contactUrl})` : base;
}

/** The product token of a User-Agent string (`datamonitor/0.1 (+…)` → `datamonitor`), used to match robots.txt groups. */
export function userAgentToken(userAgent: string): string {
  const token = /^[A-Za-z0-9_-]+/.exec(userAgent.trim());
  return token ? token[0] : USER_AGENT_TOKEN;
}
