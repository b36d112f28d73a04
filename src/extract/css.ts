/**
 * The URLs a style sheet loads: `url(…)` (backgrounds, fonts, `@import url(…)`) and `@import "…"`.
 * A regular-expression reading, as wget and Heritrix's ExtractorCSS do: enough to find what a page
 * needs to render, without a CSS parser; comments are dropped first so that commented-out rules
 * fetch nothing.
 */
const COMMENT = /\/\*[\s\S]*?\*\//g;
const URL_FUNCTION = /\burl\(\s*(['"]?)([^'")]*)\1\s*\)/gi;
const IMPORT_STRING = /@import\s+(['"])([^'"]+)\1/gi;

/** The references of a style sheet, as written (relative ones unresolved), in order, each once. */
export function cssReferences(css: string): string[] {
  const text = css.includes('/*') ? css.replace(COMMENT, ' ') : css;
  const found = new Set<string>();
  for (const m of text.matchAll(URL_FUNCTION)) if (m[2]!.trim()) found.add(m[2]!.trim());
  for (const m of text.matchAll(IMPORT_STRING)) if (m[2]!.trim()) found.add(m[2]!.trim());
  return [...found];
}

/** The http(s) URLs a style sheet loads, resolved against `base` (data: and fragment-only references dropped). */
export function cssRequisites(css: string, base: string, max = Infinity): string[] {
  const out = new Set<string>();
  for (const ref of cssReferences(css)) {
    if (out.size >= max) break;
    const url = httpUrl(ref, base);
    if (url) out.add(url);
  }
  return [...out];
}

/** An http(s) URL from a reference, fragment dropped (it names a part of the same resource); undefined otherwise. */
export function httpUrl(ref: string, base: string): string | undefined {
  const trimmed = ref.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return undefined;
  try {
    const url = new URL(trimmed, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}
