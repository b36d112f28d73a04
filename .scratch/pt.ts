let t = performance.now(); let c = process.cpuUsage();
const { Parser } = await import('@traqula/parser-sparql-1-1');
console.log('import', performance.now() - t, process.cpuUsage(c)); t = performance.now(); c = process.cpuUsage();
const p = new Parser();
console.log('construct', performance.now() - t, process.cpuUsage(c)); t = performance.now(); c = process.cpuUsage();
p.parse('SELECT * WHERE { ?s <http://x> ?o OPTIONAL { ?o ?p "x" } }');
console.log('first parse', performance.now() - t, process.cpuUsage(c)); t = performance.now(); c = process.cpuUsage();
for (let i = 0; i < 100; i++) p.parse('PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> SELECT ?l WHERE { <http://data5.lod.test/id/5> rdfs:label ?l }');
console.log('100 parses', performance.now() - t, process.cpuUsage(c));
