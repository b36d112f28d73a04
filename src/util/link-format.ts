/**
 * The project's one reader and writer of RFC 8288 link values: HTTP Link headers and
 * application/link-format (RFC 6690, the same syntax), as Memento TimeMaps (RFC 7089) use it:
 * `<uri>; rel="memento"; datetime="…", <uri>; …`. The reader is tolerant: a malformed entry
 * becomes a diagnostic and the reader goes on with the next one.
 */
import { essenceOf } from './content-type.ts';

export interface Link {
  uri: string;
  /** Parameter names lower-cased; values unquoted. */
  params: Record<string, string>;
}

export function parseLinkFormat(text: string): { links: Link[]; errors: string[] } {
  const links: Link[] = [];
  const errors: string[] = [];
  const n = text.length;
  let i = 0;
  const ws = () => { while (i < n && /\s/.test(text[i])) i++; };
  const skipToNext = () => {
    // Past the next comma that is outside "…".
    let inQuote = false;
    for (; i < n; i++) {
      const c = text[i];
      if (inQuote) { if (c === '\\') i++; else if (c === '"') inQuote = false; }
      else if (c === '"') inQuote = true;
      else if (c === ',') { i++; return; }
    }
  };
  while (i < n) {
    ws();
    if (i >= n) break;
    if (text[i] === ',') { i++; continue; }
    const start = i;
    if (text[i] !== '<') {
      errors.push(`expected '<' at offset ${start}: ${JSON.stringify(text.slice(start, start + 40))}`);
      skipToNext();
      continue;
    }
    const close = text.indexOf('>', i + 1);
    if (close < 0) { errors.push(`unterminated <URI> at offset ${start}`); break; }
    const link: Link = { uri: text.slice(i + 1, close).trim(), params: {} };
    i = close + 1;
    let ok = true;
    for (;;) {
      ws();
      if (i >= n || text[i] === ',') break;
      if (text[i] !== ';') { errors.push(`expected ';' or ',' at offset ${i} in the link to ${link.uri}`); ok = false; break; }
      i++;
      ws();
      const m = /^[A-Za-z0-9!#$&+\-.^_`|~*]+/.exec(text.slice(i, i + 64));
      if (!m) { errors.push(`expected a parameter name at offset ${i} in the link to ${link.uri}`); ok = false; break; }
      const name = m[0].toLowerCase();
      i += m[0].length;
      ws();
      let value = '';
      if (text[i] === '=') {
        i++;
        ws();
        if (text[i] === '"') {
          i++;
          let v = '';
          while (i < n && text[i] !== '"') { if (text[i] === '\\' && i + 1 < n) i++; v += text[i++]; }
          if (i >= n) { errors.push(`unterminated quoted value of '${name}' in the link to ${link.uri}`); ok = false; break; }
          i++;
          value = v;
        } else {
          const t = /^[^;,\s]*/.exec(text.slice(i))![0];
          value = t;
          i += t.length;
        }
      }
      // RFC 8288: the first occurrence of a parameter counts.
      if (!(name in link.params)) link.params[name] = value;
    }
    if (ok) links.push(link);
    else skipToNext();
  }
  return { links, errors };
}

function quote(v: string): string {
  return `"${v.replace(/["\\]/g, '\\$&')}"`;
}

/** Serialises links one per line, as TimeMaps are usually written. */
export function formatLinkFormat(links: Link[]): string {
  return links
    .map((l) => [`<${l.uri}>`, ...Object.entries(l.params).map(([k, v]) => `${k}=${quote(v)}`)].join('; '))
    .join(',\n') + '\n';
}

/** The space-separated relation types of a link (RFC 8288 allows several: rel="first memento"). */
export function rels(link: Link): string[] {
  return (link.params.rel ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/** One link of an HTTP Link: header, as the extractors use it. */
export interface HeaderLink {
  target: string;
  /** Lower-cased relation tokens (rel="a b" gives two). */
  rels: string[];
  /** The type parameter's media type, without its parameters, lower-cased. */
  type?: string;
}

/**
 * The links of a Link: header value (RFC 8288 §3), read by parseLinkFormat. Never throws: a
 * malformed link is skipped (a fetched page's header is not ours to reject), commas and
 * semicolons inside quoted parameters are respected.
 */
export function parseLinkHeader(value: string | undefined): HeaderLink[] {
  if (!value) return [];
  return parseLinkFormat(value).links.map((link) => {
    const type = link.params.type;
    return type === undefined ? { target: link.uri, rels: rels(link) } : { target: link.uri, rels: rels(link), type: essenceOf(type) };
  });
}
