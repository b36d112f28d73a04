/** One link of an HTTP Link: header (RFC 8288). */
export interface HeaderLink {
  target: string;
  /** Lower-cased relation tokens (rel="a b" gives two). */
  rels: string[];
  type?: string;
}

/**
 * Parses a Link: header value. Tolerant: a malformed link is skipped, never thrown;
 * commas and semicolons inside quoted parameters are respected.
 */
export function parseLinkHeader(value: string | undefined): HeaderLink[] {
  if (!value) return [];
  const links: HeaderLink[] = [];
  // Each link: <target> followed by ;param=value or ;param="quoted, value" pairs.
  const linkPattern = /<([^>]*)>((?:\s*;\s*[^=;,\s]+\s*(?:=\s*(?:"(?:[^"\\]|\\.)*"|[^;,]*))?)*)/g;
  const paramPattern = /;\s*([^=;,\s]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^;,]*))?/g;
  for (const match of value.matchAll(linkPattern)) {
    const link: HeaderLink = { target: match[1].trim(), rels: [] };
    for (const param of match[2].matchAll(paramPattern)) {
      const name = param[1].toLowerCase();
      const raw = (param[2] ?? '').trim();
      const paramValue = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
      if (name === 'rel' && link.rels.length === 0) link.rels = paramValue.toLowerCase().split(/\s+/).filter(Boolean);
      else if (name === 'type' && link.type === undefined) link.type = paramValue.toLowerCase().split(';')[0].trim();
    }
    links.push(link);
  }
  return links;
}
