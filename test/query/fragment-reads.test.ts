import { describe, expect, it } from 'vitest';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { runQuery, type VersionBackend } from '../../src/query/index.ts';
import { hiddenAlternates } from '../../src/query/sparql.ts';
import { ntTerm } from '../../src/rdf/terms.ts';
import type { RowConstants } from '../../src/versions/backend.ts';
import type { SparqlJsonResults, SparqlJsonTerm } from '../../src/versions/types.ts';
import { ALTERNATE_OF, PROVENANCE_GRAPH } from '../../src/archive/namespace.ts';
import { T0, DAY } from './helpers.ts';
import { VERSION_BACKENDS, builtBackend } from './version-backends.ts';

/**
 * A Triple Pattern Fragment's reads (FragmentReads.triplesAt, src/versions/fragment-sql.ts) give the default
 * graph a query sees: every page of a pattern together is what `SELECT DISTINCT` of that pattern answers over
 * the snapshot at T, named graphs' dm:inDocument statements included and alternates' data left out, on both stores.
 */
const trig = (text: string): Quad[] => new N3.Parser({ format: 'application/trig' })
  .parse(`@prefix ex: <http://example.org/> . @prefix dm: <https://w3id.org/datamonitor/ns#> .\n${text}`) as Quad[];

async function build(archive: VersionBackend): Promise<void> {
  await archive.putVersion('http://a.test/1', T0, trig('ex:a ex:q "x"@en ; ex:r 1 . ex:g1 { ex:a ex:p ex:b . ex:b ex:p ex:c }'));
  await archive.putVersion('http://a.test/2', T0, trig('ex:a ex:q "x"@en . ex:c ex:p ex:a .'));
  await archive.putVersion('http://a.test/alt', T0, trig(`ex:secret ex:p ex:a . <${PROVENANCE_GRAPH}> { <http://a.test/alt> <${ALTERNATE_OF}> <http://a.test/1> }`));
  await archive.putVersion('http://a.test/1', T0 + DAY, trig('ex:a ex:q "y"@en ; ex:r 2 . ex:g1 { ex:a ex:p ex:d }'));
  await archive.deleteGraph('http://a.test/2', T0 + 2 * DAY);
}

function jsonTerm(t: SparqlJsonTerm): string {
  const { namedNode, literal, blankNode } = N3.DataFactory;
  const value = String(t.value);
  if (t.type === 'uri') return ntTerm(namedNode(value));
  if (t.type === 'bnode') return ntTerm(blankNode(value));
  return ntTerm(t['xml:lang'] ? literal(value, t['xml:lang']) : literal(value, t.datatype ? namedNode(t.datatype) : undefined));
}

const PATTERNS: RowConstants[] = [
  {}, { p: '<http://example.org/p>' }, { s: '<http://example.org/a>' }, { o: '<http://example.org/a>' },
  { p: '<https://w3id.org/datamonitor/ns#inDocument>' }, { s: '<http://example.org/g1>' }, { o: '<http://a.test/1>' },
  { o: '"x"@en' }, { s: '<http://example.org/a>', p: '<http://example.org/q>', o: '"y"@en' }, { s: '<http://example.org/nothing>' },
];

for (const backend of VERSION_BACKENDS) {
  describe.skipIf(backend.skip)(`triplesAt on ${backend.name}`, () => {
    const held = builtBackend(backend, build);

    it.each([T0, T0 + DAY, T0 + 2 * DAY])('every page of each pattern at %i is the default graph a query sees', async (at) => {
      const archive = held.archive;
      const hidden = [...hiddenAlternates(archive, at)];
      expect(hidden).toEqual(['http://a.test/alt']);
      for (const pattern of PATTERNS) {
        const pages: string[] = [];
        for (let offset = 0; ; offset += 2) {
          const page = archive.triplesAt(at, pattern, { offset, limit: 2, hidden });
          pages.push(...page.map((t) => `${t.s} ${t.p} ${t.o}`));
          if (page.length < 2) break;
        }
        // The same pages from cursors, as hydra:next links them (a page ending in dm:inDocument statements has none).
        const cursored: string[] = [];
        let after: number | undefined;
        for (let offset = 0; ; offset += 2) {
          const page = archive.triplesAt(at, pattern, { offset, limit: 2, hidden, after });
          cursored.push(...page.map((t) => `${t.s} ${t.p} ${t.o}`));
          if (page.length < 2) break;
          after = page.at(-1)!.id;
        }
        expect(cursored, JSON.stringify(pattern)).toEqual(pages);
        const term = (nt: string | undefined, v: string) => nt ?? `?${v}`;
        const query = `SELECT DISTINCT ?s ?p ?o WHERE { ${term(pattern.s, 's')} ${term(pattern.p, 'p')} ${term(pattern.o, 'o')} }`;
        const results = JSON.parse((await runQuery(archive, query, { at, format: 'json' })).body) as SparqlJsonResults;
        const expected = results.results!.bindings.map((b) => `${pattern.s ?? jsonTerm(b.s!)} ${pattern.p ?? jsonTerm(b.p!)} ${pattern.o ?? jsonTerm(b.o!)}`);
        expect(new Set(pages).size, JSON.stringify(pattern)).toBe(pages.length);
        expect([...pages].sort(), JSON.stringify(pattern)).toEqual([...expected].sort());
      }
    });
  });
}
