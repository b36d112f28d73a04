import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { DataFactory, Parser } from 'n3';
import { createHash } from 'node:crypto';
import type { Quad } from '@rdfjs/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { verifyArchive } from '../../src/archive/verify.ts';
import { canonicalize } from '../../src/rdf/canonical.ts';
import { versionQuads } from '../../src/archive/export.ts';
import { withStore } from '../../src/store/index.ts';
import { startServer, staticRoutes, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, repoRoot, tempDir } from '../helpers.ts';

/**
 * Issue 12 item 9: graphs too costly for RDFC-1.0 used to be archived in their fallback hash's form
 * (every blank node `_:b`), so 30,000 addresses became one node with 30,000 streets, and `verify`
 * agreed. Each shape here must come back from the archive as the document's graph.
 */
const EX = '@prefix ex: <http://example.org/> .\n';
const people = (n: number) => EX + Array.from({ length: n }, (_, i) => `ex:p${i} ex:address [ ex:street "street ${i}" ; ex:zip "${String(i).padStart(5, '0')}" ] .\n`).join('');
const cycles = (n: number) => EX + Array.from({ length: n }, (_, i) => `_:a${i} ex:p _:b${i} . _:b${i} ex:p _:c${i} . _:c${i} ex:p _:d${i} . _:d${i} ex:p _:a${i} .\n`).join('');
const list = (n: number) => EX + `ex:s ex:items (${Array.from({ length: n }, (_, i) => ` "item ${i}"`).join('')} ) .\n`;

const DOCS: Record<string, string> = {
  '/people.ttl': people(30_000),
  '/cycles-20000.ttl': cycles(5_000),
  '/cycles-100.ttl': cycles(25),
  '/list.ttl': list(25_000),
};

/**
 * The graph's lines with each blank node named by its neighbourhood (three rounds of colour
 * refinement). When every blank node gets a colour of its own, equal lines mean isomorphic graphs.
 * (rdf-isomorphic takes minutes on 30,000 blank nodes.)
 */
function refinedLines(quads: Quad[]): { lines: string[]; distinct: boolean; blanks: number } {
  let colour = new Map<string, string>();
  for (const q of quads) for (const t of [q.subject, q.object]) if (t.termType === 'BlankNode') colour.set(t.value, '');
  const name = (t: Quad['subject'] | Quad['object']) => (t.termType === 'BlankNode' ? `_:${colour.get(t.value)}` : t.termType === 'Literal' ? JSON.stringify([t.value, t.language, t.datatype.value]) : `<${t.value}>`);
  for (let round = 0; round < 3; round++) {
    const around = new Map<string, string[]>();
    for (const q of quads) {
      if (q.subject.termType === 'BlankNode') around.get(q.subject.value)?.push(`> ${q.predicate.value} ${name(q.object)}`) ?? around.set(q.subject.value, [`> ${q.predicate.value} ${name(q.object)}`]);
      if (q.object.termType === 'BlankNode') around.get(q.object.value)?.push(`< ${q.predicate.value} ${name(q.subject)}`) ?? around.set(q.object.value, [`< ${q.predicate.value} ${name(q.subject)}`]);
    }
    const next = new Map<string, string>();
    for (const [b, c] of colour) next.set(b, createHash('sha256').update(c + '|' + (around.get(b) ?? []).sort().join('\n')).digest('hex'));
    colour = next;
  }
  const lines = quads.map((q) => `${name(q.subject)} ${q.predicate.value} ${name(q.object)}`).sort();
  return { lines, distinct: new Set(colour.values()).size === colour.size, blanks: colour.size };
}

const parse = (ttl: string, base: string) => new Parser({ baseIRI: base }).parse(ttl);

describe('the archived graph is the document\'s graph, whatever canonicalisation costs', () => {
  let server: TestServer;
  const dir = tempDir();
  beforeAll(async () => {
    server = await startServer(staticRoutes(Object.fromEntries(Object.entries(DOCS).map(([p, body]) => [p, { type: 'text/turtle', body }]))));
    await crawl({ seeds: Object.keys(DOCS).map((p) => server.url + p), dataDir: dir, depth: 0, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'] }).run();
  }, 120_000);
  afterAll(() => server.close());

  it('exports exactly one street for ex:p0 among 30,000 blank-node addresses', () => {
    const out = spawnSync(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'export', '--data', dir], { encoding: 'utf8', maxBuffer: 1 << 28 });
    expect(out.status).toBe(0);
    const quads = new Parser({ format: 'N-Quads' }).parse(out.stdout).filter((q) => q.graph.value === `${server.url}/people.ttl`);
    const address = quads.filter((q) => q.subject.value === 'http://example.org/p0' && q.predicate.value === 'http://example.org/address');
    expect(address).toHaveLength(1);
    const streets = quads.filter((q) => q.subject.equals(address[0]!.object) && q.predicate.value === 'http://example.org/street');
    expect(streets.map((q) => q.object.value)).toEqual(['street 0']);
    expect(new Set(quads.filter((q) => q.predicate.value === 'http://example.org/address').map((q) => q.object.value)).size).toBe(30_000);
  });

  const archivedQuads = (p: string) => {
    const entry = crawlLog(dir).find((e) => e.url === server.url + p && e.rdf_offset !== null)!;
    expect(entry).toBeDefined();
    return versionQuads(dir, { url: entry.url, time: entry.time, warcFile: entry.warc_file, rdfOffset: entry.rdf_offset, rdfLength: entry.rdf_length } as never, 'x')
      .map((q) => DataFactory.quad(q.subject, q.predicate, q.object));
  };

  it.each(['/people.ttl', '/list.ttl'])('%s round-trips through the archive isomorphically', (p) => {
    const archived = archivedQuads(p);
    const original = parse(DOCS[p]!, server.url + p);
    expect(archived.length).toBe(original.length);
    const a = refinedLines(archived);
    const o = refinedLines(original);
    expect(a.blanks).toBe(o.blanks);
    expect(o.distinct).toBe(true);
    expect(a.lines).toEqual(o.lines);
  });

  // Thousands of indistinguishable cycles defeat a general isomorphism test (it tries bijections);
  // a graph whose every node has one edge out and one in, and where each walk closes after exactly
  // four steps, is n/4 disjoint 4-cycles: isomorphic to the document.
  it.each([['/cycles-20000.ttl', 20_000], ['/cycles-100.ttl', 100]] as const)('%s comes back as the same 4-cycles', (p, nodes) => {
    const archived = archivedQuads(p);
    expect(archived).toHaveLength(nodes);
    const next = new Map<string, string>();
    const incoming = new Set<string>();
    for (const q of archived) {
      expect(q.subject.termType).toBe('BlankNode');
      expect(q.object.termType).toBe('BlankNode');
      expect(next.has(q.subject.value)).toBe(false);
      next.set(q.subject.value, q.object.value);
      incoming.add(q.object.value);
    }
    expect(next.size).toBe(nodes);
    expect(incoming.size).toBe(nodes);
    for (const start of next.keys()) {
      let n = start;
      for (let i = 0; i < 3; i++) {
        n = next.get(n)!;
        expect(n).not.toBe(start);
      }
      expect(next.get(n)).toBe(start);
    }
  });

  it('verify recomputes each graph hash the way it was made, and finds the archive intact', async () => {
    expect(crawlLog(dir).some((e) => String(e.graph_hash).startsWith('approx:'))).toBe(true); // the label-blind path was taken
    const r = await withStore(dir, undefined, (store) => verifyArchive(dir, store), { readonly: true });
    expect(r.problems).toEqual([]);
  });
});

describe('graph hashes', () => {
  it('a graph is a set: a repeated triple changes no hash, on every path', async () => {
    for (const ttl of [EX + 'ex:a ex:p ex:b .', EX + 'ex:a ex:p [ ex:q "x" ] .', cycles(25), people(30)]) {
      const doubled = ttl + '\n' + ttl.slice(EX.length);
      const once = await canonicalize(parse(ttl, 'http://example.org/'));
      const twice = await canonicalize(parse(doubled, 'http://example.org/'));
      // `[ … ]` repeated is new nodes (another graph); labelled nodes and IRIs repeated are the same triples.
      if (!ttl.includes('[')) expect(twice.hash).toBe(once.hash);
      const repeated = [...parse(ttl, 'http://example.org/')];
      const again = await canonicalize([...repeated, ...repeated]);
      expect(again.hash).toBe((await canonicalize(repeated)).hash);
      expect(again.nquads).toBe((await canonicalize(repeated)).nquads);
    }
  });

  it('the label-blind hash still tells apart graphs that differ in a literal', async () => {
    const a = await canonicalize(parse(cycles(25) + '_:a0 ex:name "one" .', 'http://example.org/'));
    const b = await canonicalize(parse(cycles(25) + '_:a0 ex:name "two" .', 'http://example.org/'));
    expect(a.method).toBe('approximate');
    expect(a.hash).not.toBe(b.hash);
    // …and does not tell a relabelling apart (that is what makes it a graph hash).
    const c = await canonicalize(parse(cycles(25).replace(/_:a0 /g, '_:zz ') + '_:zz ex:name "one" .', 'http://example.org/'));
    expect(c.hash).toBe(a.hash);
  });
});
