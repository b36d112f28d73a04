import { afterEach, describe, expect, it } from 'vitest';
import { tempArchive, turtle, T0 } from './helpers.ts';
import { runQuery } from '../../src/query/index.ts';

/**
 * A query with a slip gets a message that says where (line and column of the query as written), what was
 * found there and what was expected, as Jena and Fuseki say it: not the engine's grammar classes.
 */
describe('SPARQL syntax errors say what is wrong where', () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  const cases: Array<[query: string, message: RegExp]> = [
    // Was "unknown prefix 'http:'".
    ['SELECT * WHERE { ?s <http://example.org/p ?o }', /^SPARQL syntax error at line 1, column 21: the IRI <http:\/\/example\.org\/p is not closed: an IRI ends with '>'/],
    // Was 600 characters of Unicode classes.
    ['SELECT ?s (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY', /^SPARQL syntax error at line 1, column 55: found the end of the query, expected a variable or an expression after GROUP BY/],
    // Was "expected one of LATERAL, SERVICE, [_]".
    ['SELECT * WHERE { ?s ?p }', /^SPARQL syntax error at line 1, column 25: found '}', expected an object after '\?s \?p'/],
    ['SELECT ?s WHERE {\n  ?s ?p ?o .\n  FILTER(?o > )\n}', /^SPARQL syntax error at line 3, column 15: found '\)', expected an expression after '>'$/],
    ['SELECT * WHERE { ?s ?p ?o . FILTER(?o < 3 }', /expected '\)' to close the '\(' at line 1, column 35$/],
    ['ASK { ?s ?p "unclosed }', /^SPARQL syntax error at line 1, column 13: the string "unclosed }… is not closed/],
    ['SELECT * WHERE { ?s ?p ?o } LIMIT', /found the end of the query, expected a whole number after LIMIT/],
    // Strings and IRIs are not read as syntax: the `>` of an IRI and the `)` in a literal are no operator without operand.
    ['SELECT * WHERE { ?s ?p ?o FILTER(?o = <http://x>) FILTER("a > )" = ?o) } ORDER BY', /expected a variable or an expression after ORDER BY/],
    // A `<` inside a string opens no IRI, and a `(` in a comment none either: the query's own lexer reads them.
    ['SELECT * WHERE { ?s ?p "<http://x y" . ?s ?q } # (', /^SPARQL syntax error at line 1, column 48: found '}', expected an object after '\?s \?q'/],
    // A long string left open is named from its first quote.
    ['ASK { ?s ?p """open }', /^SPARQL syntax error at line 1, column 13: the string """open }… is not closed: end it with """/],
    // The PREFIX lines put before a query do not shift the columns of its first line.
    ['SELECT * WHERE { ?s foaf:knows }', /^SPARQL syntax error at line 1, column 32: found '}', expected an object after '\?s foaf:knows'/],
  ];

  it.each(cases)('%s', async (query, message) => {
    const t = tempArchive();
    cleanup = t.cleanup;
    await t.archive.putVersion('http://example.org/doc', T0, turtle('ex:a ex:p "x" .'));
    await expect(runQuery(t.archive, query)).rejects.toThrow(message);
  });
});
