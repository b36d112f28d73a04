import * as ox from 'oxigraph';
const N = 20000;
const blank: string[] = [], plain: string[] = [];
for (let i = 0; i < N; i++) { blank.push(`<http://e/s${i}> <http://e/addr> _:b${i.toString(16).padStart(24, '0')} <http://g/${i % 100}> .`); plain.push(`<http://e/s${i}> <http://e/label> "Resource ${i}"@en <http://g/${i % 100}> .`); }
let t = performance.now();
const parsed = ox.parse(blank.join('\n') + '\n', { format: 'application/n-quads', lenient: true });
console.log('parse', performance.now() - t); t = performance.now();
const s1 = new ox.Store(); for (const q of parsed) s1.add(q);
console.log('add each', performance.now() - t); t = performance.now();
const s2 = new ox.Store(parsed);
console.log('constructor', performance.now() - t); t = performance.now();
const s3 = new ox.Store(); s3.load(plain.join('\n') + '\n', { format: 'application/n-quads', no_transaction: true, lenient: true });
console.log('load plain', performance.now() - t); t = performance.now();
const s4 = new ox.Store(); s4.load(blank.join('\n') + '\n', { format: 'application/n-quads', no_transaction: true, lenient: true });
console.log('load blank', performance.now() - t); t = performance.now();
console.log(s4.match(null, null, null, null)[0].object.value, s1.size, s2.size);
const s5 = new ox.Store(); s5.update(`INSERT DATA { GRAPH <http://g/1> { <http://e/x> <http://e/p> _:abc } }`); console.log(s5.match(null,null,null,null)[0].object.value);
