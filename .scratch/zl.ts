import * as ox from 'oxigraph';
const st = new ox.Store();
st.load('<http://e/a> <http://e/p> <http://e/b> <http://e/g1> .\n<http://e/c> <http://e/p> "lit" <http://e/g2> .\n', { format: 'application/n-quads' });
for (const q of ['SELECT ?x { <http://e/p> <http://e/q>* ?x }', 'SELECT ?x { <http://e/a> <http://e/q>* ?x }', 'SELECT ?x { <http://e/zz> <http://e/q>* ?x }', 'SELECT ?x { "lit" <http://e/q>* ?x }', 'SELECT ?x { ?x <http://e/q>* <http://e/b> }', 'SELECT ?x { GRAPH <http://e/g2> { <http://e/a> <http://e/q>* ?x } }', 'SELECT ?x { <http://e/g1> <http://e/q>* ?x }'])
  console.log(q, st.query(q, { results_format: 'application/sparql-results+json', use_default_graph_as_union: true }));
