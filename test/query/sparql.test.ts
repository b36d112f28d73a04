import { describe, it, expect, afterEach } from 'vitest';
import { tempArchive, turtle, DAY, T0 } from './helpers.ts';
import { runQuery, queryVersions, queryChanges, renderTable, analyseQuery, parseTriplePattern, openVersionStore, type SparqlJsonResults } from '../../src/query/index.ts';
import { UserError } from '../../src/util/errors.ts';

const DOC = 'http://example.org/doc.ttl';
const OTHER = 'http://example.org/other.ttl';
const PEOPLE = 'PREFIX foaf: <http://xmlns.com/foaf/0.1/> SELECT ?s WHERE { ?s a foaf:Person } ORDER BY ?s';

async function fixture() {
  const t = tempArchive();
  await t.archive.putVersion(DOC, T0, turtle('@prefix foaf: <http://xmlns.com/foaf/0.1/> . ex:alice a foaf:Person ; foaf:name "Alice"@en .'));
  await t.archive.putVersion(OTHER, T0 + DAY, turtle('@prefix foaf: <http://xmlns.com/foaf/0.1/> . ex:bob a foaf:Person ; foaf:knows [ foaf:name "Carol" ] .'));
  await t.archive.putVersion(DOC, T0 + 2 * DAY, turtle('@prefix foaf: <http://xmlns.com/foaf/0.1/> . ex:alice foaf:name "Alice"@en .'));
  return t;
}

const bindings = (body: string) => (JSON.parse(body) as SparqlJsonResults).results!.bindings;

describe('SPARQL over the archive at any time', () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it('evaluates at now by default and at a given instant, union default graph', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const now = await runQuery(t.archive, PEOPLE);
    expect(bindings(now.body).map((b) => b.s.value)).toEqual(['http://example.org/bob']);
    const then = await runQuery(t.archive, PEOPLE, { at: T0 + DAY });
    expect(bindings(then.body).map((b) => b.s.value)).toEqual(['http://example.org/alice', 'http://example.org/bob']);
    const before = await runQuery(t.archive, PEOPLE, { at: T0 - 1 });
    expect(bindings(before.body)).toEqual([]);
  });

  it('puts each document in its named graph, and honours FROM / FROM NAMED', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const r = await runQuery(t.archive, 'SELECT ?g ?s WHERE { GRAPH ?g { ?s a <http://xmlns.com/foaf/0.1/Person> } } ORDER BY ?g', { at: T0 + DAY });
    expect(bindings(r.body).map((b) => [b.g.value, b.s.value])).toEqual([[DOC, 'http://example.org/alice'], [OTHER, 'http://example.org/bob']]);
    const from = await runQuery(t.archive, `SELECT ?s FROM <${OTHER}> WHERE { ?s ?p ?o }`, { at: T0 + DAY });
    expect(new Set(bindings(from.body).map((b) => b.s.type))).toEqual(new Set(['uri', 'bnode']));
    expect(bindings(from.body).some((b) => b.s.value === 'http://example.org/alice')).toBe(false);
    const fromNamed = await runQuery(t.archive, `PREFIX d: <http://example.org/> SELECT DISTINCT ?g FROM NAMED d:doc.ttl WHERE { GRAPH ?g { ?s ?p ?o } }`, { at: T0 + DAY });
    expect(bindings(fromNamed.body).map((b) => b.g.value)).toEqual([DOC]);
    expect(fromNamed.quads).toBe(2); // only the named graph was loaded (alice's 2 triples)
  });

  it('lists the columns of SELECT * in the order the variables first appear, as Jena and Fuseki do', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const q = 'SELECT * WHERE { ?who <http://xmlns.com/foaf/0.1/name> ?name . OPTIONAL { ?who a ?class } BIND(lang(?name) AS ?lang) }';
    const json = JSON.parse((await runQuery(t.archive, q, { at: T0 })).body) as SparqlJsonResults;
    expect(json.head.vars).toEqual(['who', 'name', 'class', 'lang']);
    expect(json.results!.bindings[0].lang.value).toBe('en');
    const csv = await runQuery(t.archive, q, { at: T0, format: 'csv' });
    expect(csv.body.split(/\r?\n/).filter(Boolean)).toEqual(['who,name,class,lang', 'http://example.org/alice,Alice,http://xmlns.com/foaf/0.1/Person,en']);
    const tsv = await runQuery(t.archive, `SELECT DISTINCT * { ?z ?y "Carol" }`);
    expect(tsv.body.length).toBeGreaterThan(0);
    expect((JSON.parse(tsv.body) as SparqlJsonResults).head.vars).toEqual(['z', 'y']);
    // A variable that is not in scope (only inside FILTER) is not made a column; an explicit projection keeps its order.
    const scoped = JSON.parse((await runQuery(t.archive, 'SELECT * { ?s ?p ?o FILTER(!BOUND(?nothing)) } LIMIT 1')).body) as SparqlJsonResults;
    expect(scoped.head.vars).toEqual(['s', 'p', 'o']);
    const explicit = JSON.parse((await runQuery(t.archive, 'SELECT ?o ?s { ?s ?p ?o } LIMIT 1')).body) as SparqlJsonResults;
    expect(explicit.head.vars).toEqual(['o', 's']);
  });

  it('writes SPARQL 1.1 JSON results, CSV, and N-Triples / Turtle for CONSTRUCT', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const json = JSON.parse((await runQuery(t.archive, 'SELECT ?s ?name WHERE { ?s <http://xmlns.com/foaf/0.1/name> ?name }', { at: T0 })).body);
    expect(json).toEqual({ head: { vars: ['s', 'name'] }, results: { bindings: [
      { s: { type: 'uri', value: 'http://example.org/alice' }, name: { type: 'literal', value: 'Alice', 'xml:lang': 'en' } },
    ] } });
    const ask = await runQuery(t.archive, 'ASK { ?s ?p "Carol" }');
    expect(JSON.parse(ask.body)).toEqual({ head: {}, boolean: true });
    const csv = await runQuery(t.archive, 'SELECT ?s ?name WHERE { ?s <http://xmlns.com/foaf/0.1/name> ?name }', { at: T0, format: 'csv' });
    expect(csv.body.split(/\r?\n/).filter(Boolean)).toEqual(['s,name', 'http://example.org/alice,Alice']);
    expect(csv.mediaType).toBe('text/csv');
    const nt = await runQuery(t.archive, 'CONSTRUCT { ?s a ?c } WHERE { ?s a ?c }', { at: T0 });
    expect(nt.body.trim()).toBe('<http://example.org/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Person> .');
    const ttl = await runQuery(t.archive, 'DESCRIBE <http://example.org/alice>', { at: T0, format: 'turtle' });
    expect(ttl.mediaType).toBe('text/turtle');
    expect(ttl.body).toContain('"Alice"@en');
    await expect(runQuery(t.archive, 'SELECT * WHERE { ?s ?p ?o }', { format: 'turtle' })).rejects.toThrow(UserError);
    const table = renderTable(JSON.parse((await runQuery(t.archive, PEOPLE, { at: T0 + DAY })).body));
    expect(table).toContain('<http://example.org/alice>');
    expect(table).toContain('2 results');
  });

  it('refuses updates and reports malformed queries as user errors', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    for (const update of ['INSERT DATA { <a:b> <a:c> <a:d> }', 'PREFIX x: <http://x/> # comment\n DELETE WHERE { ?s ?p ?o }', 'DROP ALL', 'LOAD <http://127.0.0.1:1/x>']) {
      await expect(runQuery(t.archive, update)).rejects.toThrow(/updates .* are refused/);
    }
    await expect(runQuery(t.archive, 'SELECT ?s WHERE { ?s ')).rejects.toThrow(UserError);
    await expect(runQuery(t.archive, '')).rejects.toThrow(UserError);
    expect(t.archive.graphs()).toHaveLength(2);
  });

  it('finds FROM clauses without being fooled by strings, comments or EXISTS in a projection', () => {
    expect(analyseQuery('SELECT ?s WHERE { ?s ?p "FROM <http://x/>" }')).toMatchObject({ form: 'select', hasDataset: false });
    expect(analyseQuery('# FROM <http://x/>\nSELECT ?s WHERE { ?s ?p ?o }').hasDataset).toBe(false);
    expect(analyseQuery('SELECT (EXISTS { ?s ?p ?o } AS ?e) FROM <http://a/> FROM NAMED <http://b/> WHERE { }'))
      .toMatchObject({ form: 'select', hasDataset: true, datasetGraphs: ['http://a/', 'http://b/'] });
    expect(analyseQuery('BASE <http://h/> SELECT * FROM <rel> WHERE {}')).toMatchObject({ form: 'select', hasDataset: true, datasetGraphs: undefined });
    expect(analyseQuery('prefix e: <http://e/> construct where { ?s ?p ?o }').form).toBe('construct');
  });
});

describe('prefixes, datasets and stable labels in runQuery', () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it('predeclares common prefixes for runQuery and Ver(Q), and names an unknown prefix', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const undeclared = 'SELECT ?s WHERE { ?s a foaf:Person } ORDER BY ?s';
    expect(bindings((await runQuery(t.archive, undeclared, { at: T0 + DAY })).body).map((b) => b.s.value)).toEqual(['http://example.org/alice', 'http://example.org/bob']);
    // docs/query.md's own example: --versions with an undeclared prefix.
    expect((await queryVersions(t.archive, undeclared)).map((v) => (v.answer as any).s.value).sort()).toEqual(['http://example.org/alice', 'http://example.org/bob']);
    expect((await queryChanges(t.archive, undeclared)).map((c) => c.time)).toEqual([T0, T0 + DAY, T0 + 2 * DAY]);
    await expect(runQuery(t.archive, 'SELECT ?s WHERE { ?s a ex:Person }')).rejects.toThrow(/^unknown prefix 'ex:' — declare it with PREFIX ex: <…>/);
    await expect(queryVersions(t.archive, 'SELECT ?s WHERE { ?s :p ?o }')).rejects.toThrow(/^unknown prefix ':' — declare it with PREFIX : <…>/);
    // Names that only look like prefixes: blank nodes, strings, IRIs, comments, variables.
    const shape = analyseQuery('SELECT ?s WHERE { _:b <http://x/p> "ex:y" . ?s ?p <urn:z:w> } # zz:top');
    expect(shape.unknownPrefixes).toEqual([]);
    expect(shape.text).toBe('SELECT ?s WHERE { _:b <http://x/p> "ex:y" . ?s ?p <urn:z:w> } # zz:top');
    const paths = analyseQuery('SELECT * WHERE { ?s rdf:type/rdfs:subClassOf*|^owl:sameAs ?o FILTER(?o != "1"^^xsd:int && !isIRI(skos:x)) }');
    expect(paths.text.split('SELECT')[0]!.match(/PREFIX (\w+):/g)).toEqual(['PREFIX rdf:', 'PREFIX rdfs:', 'PREFIX owl:', 'PREFIX xsd:', 'PREFIX skos:']);
    expect(analyseQuery('PREFIX foaf: <http://example.org/f#> SELECT * WHERE { ?s a foaf:P }').text).toBe('PREFIX foaf: <http://example.org/f#> SELECT * WHERE { ?s a foaf:P }');
  });

  it('takes the protocol dataset over FROM, and an empty one as empty', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const q = `SELECT ?s FROM <${DOC}> WHERE { ?s a foaf:Person }`;
    expect(bindings((await runQuery(t.archive, q, { at: T0 + DAY })).body).map((b) => b.s.value)).toEqual(['http://example.org/alice']);
    const other = await runQuery(t.archive, q, { at: T0 + DAY, defaultGraphs: [OTHER] });
    expect(bindings(other.body).map((b) => b.s.value)).toEqual(['http://example.org/bob']);
    expect(other.quads).toBe(3); // only the graph named was loaded
    expect(bindings((await runQuery(t.archive, 'SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } }', { namedGraphs: [] , defaultGraphs: [DOC] })).body)).toEqual([]);
    await expect(runQuery(t.archive, q, { defaultGraphs: ['doc.ttl'] })).rejects.toThrow(/not an absolute IRI/);
  });

  it('writes the same bytes from two handles on one archive, with the archive\'s blank-node labels', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    t.archive.checkpoint(); // the batch of putVersion calls, committed for the second handle to see
    const again = openVersionStore(t.dir);
    try {
      for (const format of ['ntriples', 'turtle', 'jsonld', 'rdfxml'] as const) {
        const construct = 'CONSTRUCT { ?s foaf:knows ?x . ?x foaf:name ?n . ?s foaf:made [ a foaf:Document ] } WHERE { ?s foaf:knows ?x . ?x foaf:name ?n }';
        const a = await runQuery(t.archive, construct, { format });
        const b = await runQuery(again, construct, { format });
        expect(b.body, format).toBe(a.body);
      }
      const select = await runQuery(t.archive, 'SELECT ?x WHERE { ?x foaf:name "Carol" }', { format: 'tsv' });
      const label = select.body.split('\n')[1];
      expect(label).toMatch(/^_:b[0-9a-f]{24}$/);
      // The label `diff`/export print for that node.
      expect([...t.archive.snapshot(T0 + DAY)].some((q) => q.s === label)).toBe(true);
    } finally {
      await again.close();
    }
  });
});

describe('version queries and changes of a SPARQL query', () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it('Ver(Q) gives each answer with its intervals; Change(Q) the instants the answers changed', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const ver = await queryVersions(t.archive, PEOPLE);
    const of = (iri: string) => ver.find((v) => (v.answer as Record<string, { value: string }>).s.value === iri)!;
    expect(of('http://example.org/alice').intervals).toEqual([{ from: T0, to: T0 + 2 * DAY }]);
    expect(of('http://example.org/alice').versions).toEqual([T0, T0 + DAY]);
    expect(of('http://example.org/bob').intervals).toEqual([{ from: T0 + DAY }]);
    const changes = await queryChanges(t.archive, PEOPLE);
    expect(changes).toEqual([
      { time: T0, added: 1, removed: 0, answers: 1 },
      { time: T0 + DAY, added: 1, removed: 0, answers: 2 },
      { time: T0 + 2 * DAY, added: 1 - 1, removed: 1, answers: 1 },
    ]);
    // A query the last version does not affect does not change there.
    expect((await queryChanges(t.archive, 'SELECT ?n WHERE { ?x <http://xmlns.com/foaf/0.1/name> ?n }')).map((c) => c.time)).toEqual([T0, T0 + DAY]);
  });

  it('blank nodes keep their identity across change points (no spurious change)', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    await t.archive.putVersion(OTHER, T0 + 3 * DAY, turtle('@prefix foaf: <http://xmlns.com/foaf/0.1/> . ex:bob a foaf:Person ; foaf:knows [ foaf:name "Carol" ] ; foaf:age 3 .'));
    const changes = await queryChanges(t.archive, 'SELECT ?x ?n WHERE { ?x <http://xmlns.com/foaf/0.1/name> ?n FILTER(isBlank(?x)) }');
    expect(changes.map((c) => c.time)).toEqual([T0 + DAY]);
  });

  it('reads triple patterns as the CLI takes them', () => {
    expect(parseTriplePattern('<http://e/s> ?p ?o')).toEqual({ s: { term: '<http://e/s>' }, p: { variable: 'p' }, o: { variable: 'o' } });
    expect(parseTriplePattern('?s a schema:Person <http://e/doc> .')).toEqual({
      s: { variable: 's' }, p: { term: '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>' }, o: { term: '<http://schema.org/Person>' }, graph: { term: '<http://e/doc>' },
    });
    expect(parseTriplePattern('?s rdfs:label "a ?b c"@en').o).toEqual({ term: '"a ?b c"@en' });
    expect(() => parseTriplePattern('?s ?p')).toThrow(UserError);
  });
});
