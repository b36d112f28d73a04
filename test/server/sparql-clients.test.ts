import path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { listening, protocolArchive } from './sparql-fixture.ts';

/**
 * Real SPARQL clients against a real endpoint on 127.0.0.1: SPARQLWrapper and rdflib (Debian's
 * python3-sparqlwrapper and python3-rdflib, for /usr/bin/python3) and fetch-sparql-endpoint (npm).
 * Without them the tests skip loudly; DATAMONITOR_REQUIRE_PYCLIENTS=1 (CI) makes a missing Python client
 * a failure. fetch-sparql-endpoint is a devDependency (7.2.0); the test skips loudly without it.
 */
const PYTHON = '/usr/bin/python3';
const REQUIRE_PY = process.env.DATAMONITOR_REQUIRE_PYCLIENTS === '1';

function pythonClients(): string | undefined {
  try {
    execFileSync(PYTHON, ['-c', 'import SPARQLWrapper, rdflib'], { stdio: 'pipe' });
    return undefined;
  } catch (e) {
    return `${PYTHON} cannot import SPARQLWrapper and rdflib (${(e as Error).message.split('\n')[0]}): apt-get install python3-sparqlwrapper python3-rdflib`;
  }
}
const pyMissing = pythonClients();
if (pyMissing && !REQUIRE_PY) console.warn(`\n*** SKIPPING the Python SPARQL client tests: ${pyMissing} ***\n`);

async function importFetchSparqlEndpoint(): Promise<any | undefined> {
  try {
    return await import('fetch-sparql-endpoint');
  } catch {
    console.warn('\n*** SKIPPING the fetch-sparql-endpoint client test: the package is not installed (add it: npm i -D -E fetch-sparql-endpoint@7.2.0) ***\n');
    return undefined;
  }
}
const fse = await importFetchSparqlEndpoint();

const ALICE = 'http://example.org/alice';
const BOB = 'http://example.org/bob';
const NAMES = [
  '<http://example.org/acme> <http://schema.org/name> "ACME"',
  '<http://example.org/alice> <http://xmlns.com/foaf/0.1/name> "Alice"@en',
  '<http://example.org/bob> <http://xmlns.com/foaf/0.1/name> "Bob"',
].slice(1);

describe('real SPARQL clients against /sparql', () => {
  let app: FastifyInstance;
  let endpoint: string;

  beforeAll(async () => {
    const served = await listening(await protocolArchive());
    app = served.app;
    endpoint = `${served.url}/sparql`;
  });
  afterAll(async () => {
    await app?.close();
  });

  it.skipIf(pyMissing !== undefined && !REQUIRE_PY)('SPARQLWrapper (defaults, JSON, CSV, TSV, Turtle, N3, POST) and rdflib get the right answers', async () => {
    if (pyMissing) throw new Error(`DATAMONITOR_REQUIRE_PYCLIENTS=1 but ${pyMissing}`);
    const script = path.join(import.meta.dirname, 'sparql-clients.py');
    const { stdout } = await promisify(execFile)(PYTHON, [script, endpoint], { timeout: 120_000 });
    const got = JSON.parse(stdout);
    for (const key of ['select_xml', 'select_json', 'select_json_post_form', 'select_json_post_direct']) expect(got[key], key).toEqual([ALICE, BOB]);
    expect(got.select_csv.replace(/\r\n/g, '\n')).toBe(`s\n${ALICE}\n${BOB}\n`);
    expect(got.select_tsv).toBe(`?s\n<${ALICE}>\n<${BOB}>\n`);
    expect(got.ask_xml).toBe('true');
    expect(got.ask_json).toBe(true);
    // The blank node's name (Carol) is a name too.
    for (const key of ['construct_rdfxml', 'construct_turtle', 'construct_n3']) {
      expect(got[key].filter((t: string) => !t.startsWith('_:')), key).toEqual(NAMES);
      expect(got[key].filter((t: string) => t.startsWith('_:')), key).toEqual([expect.stringMatching(/^_:\S+ <http:\/\/xmlns\.com\/foaf\/0\.1\/name> "Carol"$/)]);
    }
    expect(got.describe_rdfxml).toEqual([
      '<http://example.org/acme> <http://schema.org/member> <http://example.org/alice>',
      '<http://example.org/acme> <http://schema.org/name> "ACME"',
      '<http://example.org/acme> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://schema.org/Organization>',
    ]);
    // rdflib names the blank nodes of JSON-LD itself: the same graph up to their labels.
    const masked = (triples: string[]) => triples.map((t) => t.replace(/_:\S+/g, '_:x')).sort();
    expect(got['everything_json-ld']).toHaveLength(10);
    expect(masked(got['everything_json-ld'])).toEqual(masked(got.everything_nt));
    // SPARQLWrapper warns when the answer is not the format it asked for: it never had to (rdflib's
    // deprecation notice about SPARQLWrapper's own graph.load() call is not about us).
    expect(got.warnings.filter((w: string) => !/deprecated/.test(w))).toEqual([]);
  }, 180_000);

  it.skipIf(fse === undefined)('fetch-sparql-endpoint runs SELECT, ASK, CONSTRUCT and DESCRIBE', async () => {
    const fetcher = new fse.SparqlEndpointFetcher();
    const rows: any[] = [];
    for await (const row of await fetcher.fetchBindings(endpoint, 'SELECT ?s WHERE { ?s a schema:Person } ORDER BY ?s')) rows.push(row);
    expect(rows.map((r) => r.s.value)).toEqual([ALICE, BOB]);
    expect(await fetcher.fetchAsk(endpoint, 'ASK { ?s a schema:Organization }')).toBe(true);
    const quads: any[] = [];
    for await (const q of await fetcher.fetchTriples(endpoint, 'CONSTRUCT { ?s foaf:name ?n } WHERE { ?s foaf:name ?n }')) quads.push(q);
    expect(quads.map((q) => q.object.value).sort()).toEqual(['Alice', 'Bob', 'Carol']);
    const described: any[] = [];
    for await (const q of await fetcher.fetchTriples(endpoint, 'DESCRIBE <http://example.org/acme>')) described.push(q);
    expect(described.map((q) => q.predicate.value).sort()).toEqual(['http://schema.org/member', 'http://schema.org/name', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type']);
  }, 60_000);
});
