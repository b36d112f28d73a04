"""Real Python SPARQL clients against a datamonitor endpoint: prints what they got, as JSON.

Run by test/server/sparql-clients.test.ts with Debian's /usr/bin/python3 (python3-sparqlwrapper,
python3-rdflib). Every query runs with SPARQLWrapper's defaults unless the name says otherwise.
"""
import json
import sys
import urllib.request
import warnings

import rdflib
from SPARQLWrapper import SPARQLWrapper, JSON, TURTLE, CSV, TSV, N3, POST, POSTDIRECTLY

endpoint = sys.argv[1]
out = {}
warned = []


def wrapper(query, **settings):
    sparql = SPARQLWrapper(endpoint)
    sparql.setQuery(query)
    for name, value in settings.items():
        getattr(sparql, name)(value)
    return sparql


def graph_triples(g):
    return sorted(' '.join(t.n3() for t in triple) for triple in g.triples((None, None, None)))


PERSONS = 'SELECT ?s WHERE { ?s a schema:Person } ORDER BY ?s'
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    # SELECT, defaults: XML results parsed into a DOM.
    dom = wrapper(PERSONS).query().convert()
    out['select_xml'] = [n.firstChild.data for n in dom.getElementsByTagName('uri')]
    res = wrapper(PERSONS, setReturnFormat=JSON).query().convert()
    out['select_json'] = [b['s']['value'] for b in res['results']['bindings']]
    res = wrapper(PERSONS, setReturnFormat=JSON, setMethod=POST).query().convert()
    out['select_json_post_form'] = [b['s']['value'] for b in res['results']['bindings']]
    sparql = wrapper(PERSONS, setReturnFormat=JSON, setMethod=POST)
    sparql.setRequestMethod(POSTDIRECTLY)
    out['select_json_post_direct'] = [b['s']['value'] for b in sparql.query().convert()['results']['bindings']]
    out['select_csv'] = wrapper(PERSONS, setReturnFormat=CSV).query().convert().decode('utf-8')
    out['select_tsv'] = wrapper(PERSONS, setReturnFormat=TSV).query().convert().decode('utf-8')
    # ASK, defaults and JSON.
    dom = wrapper('ASK { ?s a schema:Person }').query().convert()
    out['ask_xml'] = dom.getElementsByTagName('boolean')[0].firstChild.data
    out['ask_json'] = wrapper('ASK { ?s a schema:Organization }', setReturnFormat=JSON).query().convert()['boolean']
    # CONSTRUCT and DESCRIBE, defaults: RDF/XML loaded into an rdflib graph.
    construct = 'CONSTRUCT { ?s foaf:name ?n } WHERE { ?s foaf:name ?n }'
    out['construct_rdfxml'] = graph_triples(wrapper(construct).query().convert())
    out['describe_rdfxml'] = graph_triples(wrapper('DESCRIBE <http://example.org/acme>').query().convert())
    # CONSTRUCT as Turtle and N3 (strings), parsed by rdflib.
    ttl = wrapper(construct, setReturnFormat=TURTLE).query().convert()
    out['construct_turtle'] = graph_triples(rdflib.Graph().parse(data=ttl, format='turtle'))
    n3 = wrapper(construct, setReturnFormat=N3).query().convert()
    out['construct_n3'] = graph_triples(rdflib.Graph().parse(data=n3, format='n3'))
# rdflib reads the JSON-LD and N-Triples the endpoint writes.
for accept, fmt in [('application/ld+json', 'json-ld'), ('application/n-triples', 'nt')]:
    url = endpoint + '?query=' + urllib.parse.quote('CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }')
    with urllib.request.urlopen(urllib.request.Request(url, headers={'Accept': accept})) as r:
        out['everything_' + fmt] = graph_triples(rdflib.Graph().parse(data=r.read().decode('utf-8'), format=fmt))
out['warnings'] = [str(w.message) for w in caught]
print(json.dumps(out))
