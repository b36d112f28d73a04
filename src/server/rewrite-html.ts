import { QuoteType, Tokenizer } from 'htmlparser2';
import { escapeAttributeValue } from '../util/escape.ts';

/** Attributes whose value is one URL, by attribute name (any element), plus `data` of <object>. */
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'poster', 'background', 'longdesc', 'cite']);
/** Attributes whose value is a list of image candidates: "url [descriptor], url [descriptor]". */
const SRCSET_ATTRIBUTES = new Set(['srcset', 'imagesrcset']);

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Rewrites the URLs in an archived HTML page so that following them stays in the archive (what
 * Wayback machines call replay): each link, image, script, stylesheet, form action and <base> is
 * resolved against the page (and its <base>) and handed to `toArchive`. Only the attribute values
 * change; every other byte of the page stays as it was. Fragment-only links (#top) and other schemes
 * (mailto:, javascript:, data:) are left alone. Style sheets inside the page (<style>, style="") are
 * rewritten as `rewriteCss` does; URLs that scripts build are not.
 * `banner` (HTML) is inserted as the first content of the <body> (see bannerPlace).
 */
export function rewriteHtml(html: string, pageUrl: string, toArchive: (absoluteUrl: string) => string, banner?: string): string {
  const edits: Edit[] = [];
  // Where the banner can go: right after <body …>, else after </head>, after <html …>, after the doctype.
  const place: Partial<Record<'body' | 'head' | 'html' | 'doctype', number>> = {};
  let base = pageUrl;
  let tag = '';
  let attr = '';
  let nameEnd = 0;
  let value = '';

  const resolve = (ref: string) => resolveHttp(ref, base);

  const rewritten = (name: string): string | undefined => {
    if (name === 'style') {
      const css = rewriteCss(value, base, toArchive);
      return css === value ? undefined : css;
    }
    if (URL_ATTRIBUTES.has(name) || (name === 'data' && tag === 'object')) {
      const url = resolve(value);
      if (url === undefined) return undefined;
      if (tag === 'base' && name === 'href') base = url; // later relative URLs resolve against it
      return toArchive(url);
    }
    if (SRCSET_ATTRIBUTES.has(name)) {
      let changed = false;
      const candidates = value.split(/,(?=\s|$)/).map((candidate) => {
        const m = /^(\s*)(\S+)(.*)$/s.exec(candidate);
        const url = m ? resolve(m[2]!) : undefined;
        if (!m || url === undefined) return candidate;
        changed = true;
        return `${m[1]}${toArchive(url)}${m[3]}`;
      });
      return changed ? candidates.join(',') : undefined;
    }
    return undefined;
  };

  /** The edit that puts `text` in place of the current attribute's value (`quote`, ending at `end`). */
  const valueEdit = (quote: QuoteType, at: number, end: number, text: string): Edit => {
    // The value starts after `=`, the spaces around it and the opening quote; a quoted one ends before the closing quote.
    let start = html.indexOf('=', at) + 1;
    while (/\s/.test(html[start]!)) start++;
    if (quote === QuoteType.Unquoted) return { start, end, text: `"${escapeAttributeValue(text, '"')}"` };
    return { start: start + 1, end: end - 1, text: escapeAttributeValue(text, quote === QuoteType.Single ? "'" : '"') };
  };
  // <meta http-equiv="refresh" content="5; url=…">: the content is known to be a redirect only once the tag has ended.
  let refresh = false;
  let refreshContent: { quote: QuoteType; at: number; end: number; value: string } | undefined;
  const endOfTag = () => {
    if (tag !== 'meta' || !refresh || !refreshContent) return;
    const m = /^(\s*\d*(?:\.\d*)?\s*[;,]?\s*url\s*=\s*)(['"]?)(.*?)\2(\s*)$/is.exec(refreshContent.value);
    const url = m ? resolve(m[3]!) : undefined;
    if (m && url !== undefined) edits.push(valueEdit(refreshContent.quote, refreshContent.at, refreshContent.end, `${m[1]}${m[2]}${toArchive(url)}${m[2]}${m[4]}`));
  };

  // The text of a <style> element, first to last piece, rewritten when the element closes.
  let inStyle = false;
  let styleStart = -1;
  let styleEnd = -1;
  const tokenizer = new Tokenizer({ decodeEntities: true }, {
    onopentagname(start, end) {
      tag = html.slice(start, end).toLowerCase();
      refresh = false;
      refreshContent = undefined;
    },
    onopentagend(end) {
      endOfTag();
      inStyle = tag === 'style';
      if ((tag === 'body' || tag === 'html') && place[tag] === undefined) place[tag] = end + 1;
    },
    onselfclosingtag() {
      endOfTag();
    },
    ontext(start, end) {
      if (!inStyle) return;
      if (styleStart < 0) styleStart = start;
      styleEnd = end;
    },
    onclosetag(start, end) {
      if (html.slice(start, end).toLowerCase() === 'head' && place.head === undefined) place.head = html.indexOf('>', end) + 1 || html.length;
      if (inStyle && styleStart >= 0) {
        const css = html.slice(styleStart, styleEnd);
        const text = rewriteCss(css, base, toArchive);
        if (text !== css) edits.push({ start: styleStart, end: styleEnd, text });
      }
      inStyle = false;
      styleStart = styleEnd = -1;
    },
    onattribname(start, end) {
      attr = html.slice(start, end).toLowerCase();
      nameEnd = end;
      value = '';
    },
    onattribdata(start, end) {
      value += html.slice(start, end);
    },
    onattribentity(codepoint) {
      value += String.fromCodePoint(codepoint);
    },
    onattribend(quote, end) {
      if (quote === QuoteType.NoValue) return;
      if (tag === 'meta' && attr === 'http-equiv') refresh = value.trim().toLowerCase() === 'refresh';
      if (tag === 'meta' && attr === 'content') refreshContent = { quote, at: nameEnd, end, value };
      const text = rewritten(attr);
      if (text !== undefined) edits.push(valueEdit(quote, nameEnd, end, text));
    },
    ontextentity() {},
    oncdata() {},
    oncomment() {},
    ondeclaration(_start, end) {
      if (place.doctype === undefined) place.doctype = html.indexOf('>', end) + 1 || html.length;
    },
    onprocessinginstruction() {},
    onend() {},
  });
  tokenizer.write(html);
  tokenizer.end();

  if (banner !== undefined) {
    // Never before the doctype (that would switch the page to quirks mode) nor inside <head>.
    const at = place.body ?? place.head ?? place.html ?? place.doctype ?? 0;
    edits.push({ start: at, end: at, text: banner });
  }
  if (edits.length === 0) return html;
  edits.sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let at = 0;
  for (const e of edits) {
    parts.push(html.slice(at, e.start), e.text);
    at = e.end;
  }
  parts.push(html.slice(at));
  return parts.join('');
}

/**
 * The URLs of a style sheet (`url(…)` and `@import "…"`) resolved against `base` and handed to
 * `toArchive`; other schemes (data:) and fragment-only references are left alone.
 */
export function rewriteCss(css: string, base: string, toArchive: (absoluteUrl: string) => string): string {
  const to = (ref: string): string | undefined => {
    const url = resolveHttp(ref, base);
    return url === undefined ? undefined : toArchive(url);
  };
  return css
    .replace(/\burl\(\s*(['"]?)([^'")]*)\1\s*\)/gi, (all, quote: string, ref: string) => {
      const url = to(ref);
      return url === undefined ? all : `url(${quote}${url}${quote})`;
    })
    .replace(/@import\s+(['"])([^'"]+)\1/gi, (all, quote: string, ref: string) => {
      const url = to(ref);
      return url === undefined ? all : `@import ${quote}${url}${quote}`;
    });
}

/**
 * An http(s) reference resolved against `base`; undefined for an empty or fragment-only reference (the
 * page itself), another scheme (mailto:, javascript:, data:) or something that is no URL.
 */
export function resolveHttp(ref: string, base: string): string | undefined {
  const trimmed = ref.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return undefined;
  try {
    const url = new URL(trimmed, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
