import { describe, it, expect } from 'vitest';
import { run, objects } from './helpers.ts';

describe('bad input ends with a diagnostic, never a crash', () => {
  it('reads broken HTML: unclosed and stray tags, bad attributes, truncated end', async () => {
    const r = await run('<html><body><p>one <b>two <i>three</p></b> <a href="/x">four <div about="http://ex.org/a" property="http://ex.org/p">five</span></a><a href="http://[bad">x</a><p <<< =="" </body');
    expect(r.text).toContain('one two three four five');
    expect(objects(r, 'http://ex.org/a', 'http://ex.org/p')).toEqual(['five']);
    expect(r.links.map((l) => l.url)).toEqual(['http://example.org/x']);
  });

  it('handles a 10 MB single-line document with bounded text and anchors', async () => {
    const line = '<p>' + '<a href="/p?i=1">link text</a> word '.repeat(280_000);
    expect(line.length).toBeGreaterThan(10_000_000);
    const r = await run(line);
    expect(r.text!.length).toBeLessThanOrEqual(100_000);
    expect(r.links.length).toBeLessThanOrEqual(20_000);
    expect(r.links.length).toBeGreaterThan(0);
  });

  it('stops at ctx.maxQuads with a warning', async () => {
    const r = await run('<div prefix="ex: http://ex.org/">' + '<span about="#x" property="ex:p">v</span>'.repeat(5_000) + '</div>', { ctx: { maxQuads: 100 } });
    expect(r.quads.length).toBe(100);
    expect(r.diagnostics.some((d) => d.message.includes('maxQuads'))).toBe(true);
  });

  it('stops reading hostile nesting', async () => {
    const r = await run('<div>'.repeat(50_000) + 'deep');
    expect(r.diagnostics.some((d) => d.level === 'error' && d.message.includes('nested deeper'))).toBe(true);
  });

  it('returns at once when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await run('<p about="#a" property="http://ex.org/p">v</p>', { ctx: { signal: controller.signal } });
    expect(r.quads).toEqual([]);
    expect(r.diagnostics[0]).toMatchObject({ level: 'error', message: 'extraction aborted' });
  });

  it('survives an unterminated rdf:RDF and deeply nested JSON-LD', async () => {
    const r = await run('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="http://x/a">'
      + `<script type="application/ld+json">${'['.repeat(10_000)}${']'.repeat(10_000)}</script>`);
    expect(r.diagnostics.some((d) => d.level === 'error')).toBe(true);
    const json = await run(`<script type="application/ld+json">${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}</script><p>text</p>`);
    expect(json.diagnostics.some((d) => d.message.includes('JSON-LD'))).toBe(true);
    expect(json.text).toBe('text');
  });

  it('treats binary garbage as a (meaningless) page', async () => {
    const bytes = Buffer.alloc(200_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
    const r = await run(bytes);
    expect(Array.isArray(r.quads)).toBe(true);
  });
});
