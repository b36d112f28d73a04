import { Parser } from '@traqula/parser-sparql-1-1';
const p = new Parser();
const ast = p.parse(process.argv[2]);
console.log(JSON.stringify(ast, (k, v) => (k === 'loc' ? undefined : v), 1));
