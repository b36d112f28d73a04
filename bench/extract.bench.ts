/**
 * Extraction throughput: the project's extractor (registry → charset decoding → parser →
 * diagnostics) against the bare library on the same generated document, in the same run.
 * Run: node bin/run-ts.mjs bench/extract.bench.ts [--triples N] [--reps N] [--json]
 */
import { Parser } from 'n3';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { extract } from '../src/extract/registry.ts';
import { linksFromQuads } from '../src/extract/links.ts';
import { formatExtractBench, runExtractBench, type ExtractBenchCase } from './extract-harness.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const TRIPLES = option('--triples', 200_000);
const REPS = option('--reps', 5);
const BASE = 'http://bench.example/doc';

/** A Turtle document shaped like Linked Data: prefixed names, literals, language tags, types. */
function turtleDocument(triples: number): string {
  const parts = ['@prefix ex: <http://bench.example/> .\n@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n'];
  for (let i = 0; i < triples / 4; i++) {
    parts.push(`ex:p${i} a foaf:Person ;\n  foaf:name "Person number ${i}"@en ;\n  foaf:knows ex:p${(i * 7) % (triples / 4)} ;\n  ex:age ${i % 100} .\n`);
  }
  return parts.join('');
}

function rdfXmlDocument(triples: number): string {
  const parts = ['<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://bench.example/" xmlns:foaf="http://xmlns.com/foaf/0.1/">\n'];
  for (let i = 0; i < triples / 4; i++) {
    parts.push(`<foaf:Person rdf:about="http://bench.example/p${i}"><foaf:name xml:lang="en">Person number ${i}</foaf:name><foaf:knows rdf:resource="http://bench.example/p${(i * 7) % (triples / 4)}"/><ex:age rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">${i % 100}</ex:age></foaf:Person>\n`);
  }
  parts.push('</rdf:RDF>\n');
  return parts.join('');
}

/*
 * The bare peers keep the quads in an array, as the extractor must (its result is Quad[]):
 * retaining 200k quads roughly doubles the time over counting and dropping them (GC), and that
 * cost belongs to any use of the parser, not to the extractor's overhead.
 */
function bareN3(text: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const quads: unknown[] = [];
    new Parser({ baseIRI: BASE }).parse(text, (error, quad) => {
      if (error) reject(error);
      else if (quad) quads.push(quad);
      else resolve(quads.length);
    });
  });
}

function bareRdfXml(text: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const quads: unknown[] = [];
    const parser = new RdfXmlParser({ baseIRI: BASE });
    parser.on('data', (quad: unknown) => quads.push(quad));
    parser.on('error', reject);
    parser.on('end', () => resolve(quads.length));
    parser.write(text);
    parser.end();
  });
}

async function viaExtractor(mediaType: string, body: Buffer): Promise<number> {
  const result = await extract({ url: BASE, mediaType, body, headers: {} }, { maxQuads: Number.MAX_SAFE_INTEGER });
  if (result.diagnostics.length > 0) throw new Error(`unexpected diagnostics: ${JSON.stringify(result.diagnostics)}`);
  return result.quads.length;
}

const turtle = turtleDocument(TRIPLES);
const turtleBody = Buffer.from(turtle);
const rdfxml = rdfXmlDocument(TRIPLES);
const rdfxmlBody = Buffer.from(rdfxml);

/** Cases measured here; the HTML+RDFa case lives with the HTML engineer (same harness). */
export const cases: ExtractBenchCase[] = [
  { name: `Turtle, ${(turtleBody.length / 1e6).toFixed(1)} MB (n3 callback parser)`, bare: () => bareN3(turtle), extractor: () => viaExtractor('text/turtle', turtleBody) },
  { name: `RDF/XML, ${(rdfxmlBody.length / 1e6).toFixed(1)} MB (rdfxml-streaming-parser)`, bare: () => bareRdfXml(rdfxml), extractor: () => viaExtractor('application/rdf+xml', rdfxmlBody) },
  {
    name: 'Turtle extractor + linksFromQuads (crawler hot path; outside the 20 % budget)',
    bare: () => bareN3(turtle),
    extractor: async () => {
      const result = await extract({ url: BASE, mediaType: 'text/turtle', body: turtleBody, headers: {} }, { maxQuads: Number.MAX_SAFE_INTEGER });
      linksFromQuads(result.quads);
      return result.quads.length;
    },
  },
];

const rows = await runExtractBench(cases, REPS);
if (args.includes('--json')) console.log(JSON.stringify(rows, null, 2));
else console.log(formatExtractBench(`Extraction throughput (${TRIPLES.toLocaleString('en')} triples per document)`, rows, REPS));
