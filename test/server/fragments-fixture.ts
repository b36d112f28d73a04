import { crawl } from '../../src/crawler/crawl.ts';
import { indexVersions } from '../query/helpers.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { tempDir } from '../helpers.ts';

const PREFIXES = '@prefix ex: <http://example.org/> .\n@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n';

/** Values of the numbers document: more triples than a fragment's page, so that clients must follow hydra:next. */
const numbers = (n: number, shift: number) => Array.from({ length: n }, (_v, i) => `ex:n${i} ex:value ${i + shift} .`).join('\n');

/** Blank nodes: a client joining through them sends them back as pattern terms. */
const ADDRESSES = 'ex:alice ex:address [ ex:street "Main Street" ] .\nex:bob ex:address [ ex:street "High Street" ] .';

/**
 * The site before and after the change: documents changed, one gone (404), one new, one unchanged; one triple
 * (Bob's rdfs:seeAlso) stated by two documents.
 */
const SITES: Array<Record<string, string>> = [
  {
    '/alice.ttl': 'ex:alice a foaf:Person ; foaf:name "Alice" ; ex:age 30 ; foaf:knows ex:bob ; ex:city ex:paris .\nex:bob rdfs:seeAlso ex:bobs-page .',
    '/bob.ttl': 'ex:bob a foaf:Person ; foaf:name "Bob" ; ex:age 40 ; foaf:knows ex:carol ; ex:city ex:rome ; rdfs:seeAlso ex:bobs-page .',
    '/carol.ttl': 'ex:carol a foaf:Person ; foaf:name "Carol" ; foaf:knows ex:alice .',
    '/dave.ttl': 'ex:dave a foaf:Person ; foaf:name "Dave"@en ; foaf:knows ex:alice .',
    '/places.ttl': 'ex:paris rdfs:label "Paris"@en, "Paris"@fr .\nex:rome rdfs:label "Rome"@en .',
    '/numbers.ttl': numbers(250, 0),
    '/addresses.ttl': ADDRESSES,
  },
  {
    '/alice.ttl': 'ex:alice a foaf:Person ; foaf:name "Alice" ; ex:age 31 ; foaf:knows ex:bob, ex:dave ; ex:city ex:rome .\nex:bob rdfs:seeAlso ex:bobs-page .',
    '/bob.ttl': 'ex:bob a foaf:Person ; foaf:name "Robert" ; foaf:knows ex:carol, ex:eve ; ex:city ex:rome ; rdfs:seeAlso ex:bobs-page .',
    '/dave.ttl': 'ex:dave a foaf:Person ; foaf:name "Dave"@en ; foaf:knows ex:alice .',
    '/eve.ttl': 'ex:eve a foaf:Person ; foaf:name "Eve" ; ex:age 25 ; foaf:knows ex:alice ; ex:city ex:paris .',
    '/places.ttl': 'ex:paris rdfs:label "Paris"@en, "Paris"@fr .\nex:rome rdfs:label "Rome"@en, "Roma"@it .',
    '/numbers.ttl': numbers(180, 1000),
    '/addresses.ttl': ADDRESSES.replace('High Street', 'Station Road'),
  },
];
const PATHS = ['/addresses.ttl', '/alice.ttl', '/bob.ttl', '/carol.ttl', '/dave.ttl', '/eve.ttl', '/places.ttl', '/numbers.ttl'];

export interface FragmentsArchive {
  dataDir: string;
  origin: TestServer;
  /** An instant (a whole second) after the first crawl and before the second. */
  between: number;
  /** When the first crawl started: before it the archive held nothing. */
  before: number;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An archive of two crawls of a Linked Data site on 127.0.0.1, the site changed between them, with the
 * version index caught up (what `query` does first). The crawls are over two seconds apart, so that a
 * whole second lies between them for Accept-Datetime.
 */
export async function buildFragmentsArchive(): Promise<FragmentsArchive> {
  const dataDir = tempDir('dm-fragments-');
  let site = SITES[0]!;
  const origin = await startServer((_req, res, url) => {
    const body = site[url.pathname];
    if (body === undefined) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return res.writeHead(200, { 'content-type': 'text/turtle' }).end(PREFIXES + body + '\n');
  });
  const run = () => crawl({
    seeds: PATHS.map((p) => `${origin.url}${p}`), dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, refetch: true, noFollow: true,
    domains: ['127.0.0.1'], robots: false,
  }).run();
  const before = Date.now() - 1000;
  await run();
  const firstDone = Date.now();
  await sleep(2100);
  site = SITES[1]!;
  await run();
  await (await indexVersions(dataDir)).close();
  return { dataDir, origin, before, between: Math.ceil(firstDone / 1000) * 1000, close: () => origin.close() };
}
