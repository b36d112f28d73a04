import type { Quad } from '@rdfjs/types';
import { Parser, Writer } from 'n3';
import canonize from 'rdf-canonize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalize, firstDegreeLabels } from '../../src/rdf/canonical.ts';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, tempDir } from '../helpers.ts';
import { linkedDataDocument } from '../../src/testkit/linked-data-site.ts';
import { generatedVocabulary } from '../../src/testkit/real-vocabulary.ts';

/**
 * Canonical labels without the general algorithm where first-degree hashes decide them
 * (src/rdf/canonical.ts, firstDegreeLabels): the archive must hold exactly what RDFC-1.0 gives,
 * and a version must count as changed exactly when its graph changed.
 */
const parse = (text: string, format = 'text/turtle'): Quad[] => new Parser({ baseIRI: 'http://example.org/', format }).parse(text) as Quad[];
const rdfc = (quads: Quad[]): Promise<string> => canonize.canonize(quads, { algorithm: 'RDFC-1.0', maxWorkFactor: 3 });
const doc = (j: number) => `http://data${j % 10}.example.org/doc/${j}`;
const realistic = (i: number) => linkedDataDocument(i, 1000, doc, generatedVocabulary());

/** The same graph written otherwise: N-Triples, lines in reverse order, every blank node relabelled. */
function reserialised(quads: Quad[]): string {
  const nt = new Writer({ format: 'N-Triples' }).quadsToString(quads);
  return nt.trim().split('\n').reverse().join('\n').replace(/_:(\S+)/g, '_:renamed_$1') + '\n';
}

const PREFIX = '@prefix ex: <http://example.org/> .\n';
/** Graphs whose blank nodes all have distinct neighbourhoods: the shortcut must decide them. */
const DISTINCT: Record<string, string> = {
  'one address': `${PREFIX}ex:r ex:name "R" ; ex:address [ a ex:Address ; ex:city "Paris" ; ex:postcode "75001" ] .`,
  'nested blank nodes': `${PREFIX}ex:r ex:p [ ex:q [ ex:s "deep" ] ; ex:t "mid" ] .`,
  'a list': `${PREFIX}ex:r ex:items ( "one" "two" "three" ) .`,
  'a long list (the labels follow the hashes, not the document)': `${PREFIX}ex:r ex:items ( ${Array.from({ length: 12 }, (_, k) => `"item ${k}"`).join(' ')} ) .`,
  'a blank node naming itself': `${PREFIX}_:self ex:knows _:self ; ex:name "me" .`,
  'escapes, languages and datatypes': `${PREFIX}ex:r ex:b [ ex:t "quote \\" backslash \\\\ line\\nbreak tab\\t"@en-GB ; ex:n 3.50 ; ex:d "2026-01-01"^^<http://www.w3.org/2001/XMLSchema#date> ; ex:i <http://example.org/a%20b> ] .`,
  'blank graph names': '<http://example.org/s> <http://example.org/p> _:o _:g .\n_:o <http://example.org/p> "in g" _:g .\n_:o <http://example.org/p> "default" .\n',
};

describe('canonical labels from first-degree hashes', () => {
  it('give RDFC-1.0 output, byte for byte, where every blank node has its own first-degree hash', async () => {
    const graphs: [string, Quad[]][] = [
      ...Object.entries(DISTINCT).map(([name, text]): [string, Quad[]] => [name, parse(text, name === 'blank graph names' ? 'application/n-quads' : 'text/turtle')]),
      ...Array.from({ length: 20 }, (_, i): [string, Quad[]] => [`realistic document ${i * 37}`, parse(realistic(i * 37))]),
    ];
    // A graph is a set: a repeated quad (here: every blank-node quad twice) is the same graph.
    const repeated = parse(DISTINCT['nested blank nodes']!);
    graphs.push(['repeated quads', [...repeated, ...repeated.filter((q) => q.subject.termType === 'BlankNode')]]);
    for (const [name, quads] of graphs) {
      expect(quads.some((q) => q.subject.termType === 'BlankNode' || q.object.termType === 'BlankNode'), name).toBe(true);
      const fast = firstDegreeLabels(quads);
      expect(fast, name).toBeDefined();
      expect(fast, name).toBe(await rdfc(name === 'repeated quads' ? repeated : quads));
      expect((await canonicalize(quads)).nquads, name).toBe(fast);
    }
  });

  it('a re-serialised document with renamed blank nodes is no change; a changed blank-node triple is one', async () => {
    for (const i of [0, 1, 2, 500, 999]) {
      const text = realistic(i);
      const before = await canonicalize(parse(text));
      expect(before.method).toBe('rdfc-1.0');
      const again = await canonicalize(parse(reserialised(parse(text)), 'application/n-triples'));
      expect(again.hash).toBe(before.hash);
      // The address's street is a triple of the blank node only.
      const moved = text.replace(/(\n\s+v:addressProperty0 ")([^"]*)"/, '$1$2 bis"');
      expect(moved).not.toBe(text);
      expect((await canonicalize(parse(moved))).hash).not.toBe(before.hash);
    }
  });

  describe('blank nodes with alike neighbourhoods: the general algorithm decides', () => {
    const ring = (n: number, prefix: string) => Array.from({ length: n }, (_, k) => `_:${prefix}${k} <http://example.org/next> _:${prefix}${(k + 1) % n} .`).join('\n');
    const hexagon = `${ring(6, 'h')}\n`;
    const twoTriangles = `${ring(3, 't')}\n${ring(3, 'u')}\n`;
    // Two people, each with a blank node for a name: a and b look alike until their names' values.
    // Rings need more of RDFC-1.0's deep iterations than the crawl's default bound allows.
    const canon = (quads: Quad[]) => canonicalize(quads, { maxWorkFactor: 3 });
    const people = (x: string, y: string) => `${PREFIX}ex:r ex:knows _:a, _:b . _:a ex:name _:c . _:b ex:name _:d . _:c ex:v "${x}" . _:d ex:v "${y}" .`;

    it('the shortcut declines, and the result is RDFC-1.0 output', async () => {
      for (const text of [hexagon, twoTriangles, people('1', '2'), `${PREFIX}ex:r ex:address [ ex:city "A" ], [ ex:city "A" ] .`]) {
        const quads = parse(text);
        expect(firstDegreeLabels(quads)).toBeUndefined();
        const c = await canon(quads);
        expect(c.method).toBe('rdfc-1.0');
        expect(c.nquads).toBe(await rdfc(quads));
      }
    });

    it('tells graphs apart that every first-degree hash confuses, and renamings stay no change', async () => {
      const h = await canon(parse(hexagon));
      // Every node of both graphs has the same first-degree hash; only the structure differs.
      expect((await canon(parse(twoTriangles))).hash).not.toBe(h.hash);
      expect((await canon(parse(reserialised(parse(hexagon)), 'application/n-triples'))).hash).toBe(h.hash);

      const p = await canon(parse(people('1', '2')));
      expect((await canon(parse(people('2', '1')))).hash).toBe(p.hash); // the same graph: a and b swapped
      expect((await canon(parse(people('1', '3')))).hash).not.toBe(p.hash);
      expect((await canon(parse(reserialised(parse(people('1', '2'))), 'application/n-triples'))).hash).toBe(p.hash);
    });
  });

  describe('through a crawl: the change column of the crawl log', () => {
    let server: TestServer;
    let body = '';
    let type = 'text/turtle';
    const dataDir = tempDir();
    beforeAll(async () => {
      server = await startServer((req, res) => {
        res.writeHead(req.url === '/doc' ? 200 : 404, { 'content-type': type });
        res.end(req.url === '/doc' ? body : '');
      });
    });
    afterAll(() => server.close());

    it('follows the graph, through the shortcut and through the general algorithm', async () => {
      const serve = async (text: string, as = 'text/turtle') => {
        body = text;
        type = as;
        await crawl({ seeds: [`${server.url}/doc`], dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, refetch: true, noFollow: true, robots: false, domains: ['127.0.0.1'] }).run();
      };
      const text = realistic(7);
      await serve(text); // new
      await serve(reserialised(parse(text)), 'application/n-triples'); // same graph, renamed blank nodes
      await serve(text.replace(/(\n\s+v:addressProperty0 ")([^"]*)"/, '$1$2 bis"')); // a blank node's triple changed
      const people = (x: string, y: string) => `${PREFIX}ex:r ex:knows _:a, _:b . _:a ex:name _:c . _:b ex:name _:d . _:c ex:v "${x}" . _:d ex:v "${y}" .`;
      await serve(people('1', '2')); // changed
      await serve(people('2', '1')); // the same graph (a and b swapped)
      await serve(people('1', '3')); // changed
      const changes = crawlLog(dataDir).filter((e) => e.url.endsWith('/doc')).map((e) => e.change);
      expect(changes).toEqual(['new', 'unchanged', 'changed', 'changed', 'unchanged', 'changed']);
    });
  });
});
