import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSONLD_LIMITS } from '../../src/extract/jsonld.ts';
import { extract } from '../../src/extract/registry.ts';
import { countingServer, errors, extractText, lines } from './helpers.ts';

const EX = 'http://example.org/';

describe('JSON-LD remote contexts go through ctx.loadDocument', () => {
  let server: Awaited<ReturnType<typeof countingServer>>;
  const ctxRoutes: Record<string, { type: string; body: string }> = {
    '/vocab.jsonld': { type: 'application/ld+json', body: JSON.stringify({ '@context': { name: `${EX}name`, knows: { '@id': `${EX}knows`, '@type': '@id' } } }) },
    '/loop-a.jsonld': { type: 'application/ld+json', body: '' },
    '/loop-b.jsonld': { type: 'application/ld+json', body: '' },
  };
  for (let i = 0; i < JSONLD_LIMITS.maxRemoteContexts + 2; i++) {
    ctxRoutes[`/c${i}.jsonld`] = { type: 'application/ld+json', body: JSON.stringify({ '@context': { [`p${i}`]: `${EX}p${i}` } }) };
  }
  /** A loader like the crawler's: real HTTP to 127.0.0.1. */
  const loadDocument = async (url: string) => {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return response.json();
  };

  beforeAll(async () => {
    server = await countingServer(ctxRoutes);
    ctxRoutes['/loop-a.jsonld'].body = JSON.stringify({ '@context': [`${server.base}/loop-b.jsonld`, { a: `${EX}a` }] });
    ctxRoutes['/loop-b.jsonld'].body = JSON.stringify({ '@context': [`${server.base}/loop-a.jsonld`, { b: `${EX}b` }] });
  });
  afterAll(() => server.close());

  it('loads a remote context once per document, however often it is used', async () => {
    server.hits.clear();
    const ctx = `${server.base}/vocab.jsonld`;
    const doc = { '@context': ctx, '@id': `${EX}me`, name: 'Me', knows: { '@context': ctx, '@id': `${EX}you`, name: 'You' } };
    const r = await extractText('application/ld+json', JSON.stringify(doc), { loadDocument });
    expect(errors(r)).toEqual([]);
    expect(lines(r.quads)).toEqual([`${EX}me ${EX}knows ${EX}you`, `${EX}me ${EX}name Me`, `${EX}you ${EX}name You`]);
    expect(server.hits.get('/vocab.jsonld')).toBe(1);
  });

  it('a context loop ends with a diagnostic after a bounded number of fetches', async () => {
    server.hits.clear();
    const doc = { '@context': `${server.base}/loop-a.jsonld`, '@id': `${EX}x`, a: '1' };
    const r = await extractText('application/ld+json', JSON.stringify(doc), { loadDocument });
    expect(errors(r)).toHaveLength(1);
    expect(errors(r)[0].message).toMatch(/cyclic context inclusion/i);
    expect(server.total()).toBeLessThanOrEqual(2);
  });

  it('more than the allowed number of remote contexts is refused', async () => {
    server.hits.clear();
    const contexts = Array.from({ length: JSONLD_LIMITS.maxRemoteContexts + 2 }, (_, i) => `${server.base}/c${i}.jsonld`);
    const r = await extractText('application/ld+json', JSON.stringify({ '@context': contexts, '@id': `${EX}x`, p0: '1' }), { loadDocument });
    expect(errors(r)[0].message).toMatch(/more than 10 remote contexts/);
    expect(server.total()).toBeLessThanOrEqual(JSONLD_LIMITS.maxRemoteContexts);
  });

  it('without a loader, a remote context is a diagnostic and nothing is fetched', async () => {
    server.hits.clear();
    const r = await extractText('application/ld+json', JSON.stringify({ '@context': `${server.base}/vocab.jsonld`, '@id': `${EX}me`, name: 'Me' }));
    expect(errors(r)[0].message).toMatch(/no loader/);
    expect(server.total()).toBe(0);
  });

  it('plain application/json gets its context from a Link header', async () => {
    server.hits.clear();
    const r = await extract(
      {
        url: `${EX}doc`,
        mediaType: 'application/json',
        body: Buffer.from(JSON.stringify({ '@id': `${EX}me`, name: 'Me' })),
        headers: { link: `<${server.base}/vocab.jsonld>; rel="http://www.w3.org/ns/json-ld#context"; type="application/ld+json"` },
      },
      { maxQuads: 100, loadDocument },
    );
    expect(lines(r.quads)).toEqual([`${EX}me ${EX}name Me`]);
  });
});

describe('bad JSON-LD', () => {
  it('deep nesting is refused before parsing', async () => {
    const depth = 100_000;
    const r = await extractText('application/ld+json', `${'{"http://example.org/p":'.repeat(depth)}1${'}'.repeat(depth)}`);
    expect(r.quads).toEqual([]);
    expect(errors(r)[0].message).toMatch(/nested deeper/);
  });
  it('nesting within the bound parses', async () => {
    const depth = 50;
    const r = await extractText('application/ld+json', `${'{"http://example.org/p":'.repeat(depth)}"x"${'}'.repeat(depth)}`);
    expect(errors(r)).toEqual([]);
    expect(r.quads).toHaveLength(depth);
  });
  it('invalid JSON is a diagnostic', async () => {
    const r = await extractText('application/ld+json', '{"@id": "http://example.org/a", "http://example.org/p": tru}');
    expect(errors(r)).toHaveLength(1);
  });
});
