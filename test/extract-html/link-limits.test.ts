import { describe, expect, it } from 'vitest';
import { SCAN_LIMITS } from '../../src/extract/html/scanner.ts';
import { documentLinks } from '../../src/extract/links.ts';
import { run } from './helpers.ts';

describe('links per page', () => {
  it(`keeps ${SCAN_LIMITS.maxAnchors} links of a page and says how many more were dropped`, async () => {
    const extra = 5_123;
    const anchors = Array.from({ length: SCAN_LIMITS.maxAnchors + extra }, (_, i) => `<li><a href="http://h${i % 97}.example/item/${i}">item ${i}</a></li>`).join('\n');
    const r = await run(`<!doctype html><title>dump</title><ul>${anchors}</ul>`);
    expect(r.links.filter((l) => l.kind === 'anchor')).toHaveLength(SCAN_LIMITS.maxAnchors);
    expect(r.diagnostics.map((d) => d.message)).toContain(`${extra} links (<a>, <area>) past the limit of ${SCAN_LIMITS.maxAnchors} per page dropped`);
    // The last link kept is the limit's, the first dropped one is nowhere (not even as a link triple).
    const urls = new Set(documentLinks(r).map((l) => l.url));
    expect(urls.has(`http://h${(SCAN_LIMITS.maxAnchors - 1) % 97}.example/item/${SCAN_LIMITS.maxAnchors - 1}`)).toBe(true);
    expect(urls.has(`http://h${SCAN_LIMITS.maxAnchors % 97}.example/item/${SCAN_LIMITS.maxAnchors}`)).toBe(false);
  });

  it('a page under the limit gets no such diagnostic', async () => {
    const r = await run(`<!doctype html><title>t</title>${'<a href="/x">x</a>'.repeat(100)}<link rel="alternate" type="text/turtle" href="/d.ttl">`);
    expect(r.diagnostics).toEqual([]);
  });

  it(`<link> elements past ${SCAN_LIMITS.maxLinkElements} are dropped with a count too`, async () => {
    const links = Array.from({ length: SCAN_LIMITS.maxLinkElements + 7 }, (_, i) => `<link rel="alternate" type="text/turtle" href="/d${i}.ttl">`).join('');
    const r = await run(`<!doctype html><head>${links}</head>`);
    expect(r.links.filter((l) => l.kind === 'alternate')).toHaveLength(SCAN_LIMITS.maxLinkElements);
    expect(r.diagnostics.map((d) => d.message)).toContain(`7 <link> elements past the limit of ${SCAN_LIMITS.maxLinkElements} per page dropped`);
  });
});
