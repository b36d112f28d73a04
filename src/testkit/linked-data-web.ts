import { startServer, type TestServer } from './server.ts';

/**
 * A generated Web of Linked Data shaped like the real one, served by one HTTP server on 127.0.0.1
 * that answers for many virtual hosts (`data0.lod.test`, `data1.lod.test`, …, chosen by the Host
 * header, so a crawl reaches it through a forward proxy or `--resolve`).
 *
 * What makes it unlike the kind fixtures: each document has about 35 triples, a blank node (a postal
 * address), ten links to documents on other hosts, and uses two vocabularies; resources are named by
 * `/id/N` IRIs that answer `303 See Other` to the describing `/doc/N` (the Linked Data pattern), so
 * a document is reached through many IRIs; one vocabulary is a single file that every one of its
 * term IRIs 303s to (`schema.lod.test/term/K` → `/terms.ttl`), the other a hash namespace. A crawler
 * that follows redirects inside the fetch fetches `/terms.ttl` once per term and `/doc/N` once per
 * linking IRI; a correct one fetches each once.
 */
export interface LinkedDataWebOptions {
  documents: number;
  /** Virtual hosts the documents are spread over (default 10). */
  hosts?: number;
  /** Links from each document to others (default 10). */
  linksPerDocument?: number;
  /** Terms of the slash vocabulary whose IRIs all 303 to one file (default 45). */
  terms?: number;
  /** Seed of the pseudo-random link structure (default 1). */
  seed?: number;
}

export interface LinkedDataWeb extends TestServer {
  /** The IRI of document 0's resource: a seed that reaches every document. */
  seed: string;
  /** Every document URL the Web serves (the ones a complete crawl archives). */
  documentUrls(): string[];
  /** Requests made for each `host + path`, to check that nothing was fetched twice. */
  hits: Map<string, number>;
  /** Names of the virtual hosts (for `--resolve` or a proxy). */
  hostNames(): string[];
  /** Resource IRI of document i. */
  resource(i: number): string;
  /** Describing document of document i. */
  document(i: number): string;
}

export const SCHEMA_HOST = 'schema.lod.test';
export const VOCAB_HOST = 'vocab.lod.test';

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/** xorshift32: the same Web for the same seed. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

/**
 * The documents document i of n links to: the next one keeps the Web connected, the others (up to
 * `linksPer` in all) are drawn at random and so jump across hosts; the same for the same seed.
 */
export function linksOf(i: number, n: number, linksPer: number, seed: number): number[] {
  const r = rng(seed * 2654435761 + i);
  const out = [(i + 1) % n];
  while (out.length < Math.min(linksPer, n - 1)) {
    const j = Math.floor(r() * n);
    if (j !== i && !out.includes(j)) out.push(j);
  }
  return out;
}

export function linkedDataWeb(o: LinkedDataWebOptions) {
  const hosts = o.hosts ?? 10;
  const linksPer = o.linksPerDocument ?? 10;
  const terms = o.terms ?? 45;
  const hostOfDoc = (i: number) => `data${i % hosts}.lod.test`;
  const resource = (i: number) => `http://${hostOfDoc(i)}/id/${i}`;
  const document = (i: number) => `http://${hostOfDoc(i)}/doc/${i}`;
  const term = (k: number) => `http://${SCHEMA_HOST}/term/${k % terms}`;

  const links = (i: number): number[] => linksOf(i, o.documents, linksPer, o.seed ?? 1);

  const turtle = (i: number): string => {
    const me = `<${resource(i)}>`;
    const l = links(i);
    const lines = [
      `@prefix v: <http://${VOCAB_HOST}/ns#> .`,
      `@prefix s: <http://${SCHEMA_HOST}/term/> .`,
      `@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .`,
      `@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .`,
      `<${document(i)}> a v:Document ; v:primaryTopic ${me} ; v:modified "2026-0${1 + (i % 9)}-1${i % 10}T12:00:00Z"^^xsd:dateTime .`,
      `${me} a <${term(i)}>, v:Agent ;`,
      `  rdfs:label "Resource ${i}"@en, "Ressource ${i}"@fr ;`,
      `  v:identifier "${i}"^^xsd:integer ;`,
      `  rdfs:comment "A generated resource; its number is ${i}, its host ${hostOfDoc(i)}." ;`,
      `  v:created "20${10 + (i % 15)}-01-01"^^xsd:date ; v:weight "${i % 97}"^^xsd:decimal ; v:active ${i % 2 === 0} ;`,
      `  v:description "Resource ${i} of the generated Web of Data, with \\"quotes\\" and a line\\nbreak." ;`,
      `  <${term(i + 1)}> "value ${i}" ;`,
      `  <${term(i + 2)}> ${(i * 0.37).toFixed(2)} ;`,
      `  v:address [ a v:Address ; v:street "${i} Linked Data Lane" ; v:postcode "${String(10000 + i).slice(-5)}" ; v:city "City ${i % 17}" ] ;`,
      ...l.map((j) => `  v:related <${resource(j)}> ;`),
      ...l.slice(0, 3).map((j) => `  rdfs:seeAlso <${document(j)}> ;`),
      `  v:homepage <http://${hostOfDoc(i)}/page/${i}.html> .`,
    ];
    return lines.join('\n') + '\n';
  };

  const vocabulary = (): string => {
    const lines = [`@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .`, `@prefix owl: <http://www.w3.org/2002/07/owl#> .`];
    lines.push(`<http://${SCHEMA_HOST}/terms.ttl> a owl:Ontology ; rdfs:label "The slash vocabulary" .`);
    for (let k = 0; k < terms; k++) lines.push(`<${term(k)}> a rdfs:Class ; rdfs:label "Term ${k}" ; rdfs:isDefinedBy <http://${SCHEMA_HOST}/terms.ttl> .`);
    return lines.join('\n') + '\n';
  };

  const hashVocabulary = (): string =>
    `@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n` +
    ['Document', 'Agent', 'Address'].map((c) => `<http://${VOCAB_HOST}/ns#${c}> a rdfs:Class ; rdfs:label "${c}" .`).join('\n') +
    '\n' +
    ['primaryTopic', 'modified', 'identifier', 'created', 'weight', 'active', 'description', 'address', 'street', 'postcode', 'city', 'related', 'homepage']
      .map((p) => `<http://${VOCAB_HOST}/ns#${p}> a <${RDF_TYPE.replace('type', 'Property')}> .`)
      .join('\n') +
    '\n';

  const documentUrls = (): string[] => {
    const out = [`http://${SCHEMA_HOST}/terms.ttl`, `http://${VOCAB_HOST}/ns`];
    for (let i = 0; i < o.documents; i++) out.push(document(i));
    return out;
  };

  return { resource, document, turtle, vocabulary, hashVocabulary, documentUrls, hostOfDoc, hosts };
}

export async function startLinkedDataWeb(o: LinkedDataWebOptions): Promise<LinkedDataWeb> {
  const web = linkedDataWeb(o);
  const hits = new Map<string, number>();
  const server = await startServer((req, res, url) => {
    // Absolute-URI requests (from a forward proxy or a crawler told to use one) name the host themselves.
    const target = /^https?:\/\//.test(req.url ?? '') ? new URL(req.url as string) : url;
    const host = target.host;
    const key = host + target.pathname;
    hits.set(key, (hits.get(key) ?? 0) + 1);
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    };
    if (target.pathname === '/robots.txt') return send(200, 'text/plain', 'User-agent: *\nDisallow: /private/\n');
    if (host === SCHEMA_HOST) {
      if (target.pathname === '/terms.ttl') return send(200, 'text/turtle', web.vocabulary());
      if (target.pathname.startsWith('/term/')) return send(303, 'text/plain', 'see other', { location: '/terms.ttl' });
    }
    if (host === VOCAB_HOST && target.pathname === '/ns') return send(200, 'text/turtle', web.hashVocabulary());
    const m = /^data(\d+)\.lod\.test$/.exec(target.hostname);
    const d = /^\/(id|doc)\/(\d+)$/.exec(target.pathname);
    if (m && d) {
      const i = Number(d[2]);
      if (i < o.documents && web.hostOfDoc(i) === target.hostname) {
        if (d[1] === 'id') return send(303, 'text/plain', 'see other', { location: web.document(i) });
        return send(200, 'text/turtle', web.turtle(i));
      }
    }
    return send(404, 'text/plain', 'not found');
  });
  const names = [SCHEMA_HOST, VOCAB_HOST];
  for (let h = 0; h < web.hosts; h++) names.push(`data${h}.lod.test`);
  return {
    ...server,
    seed: web.resource(0),
    documentUrls: web.documentUrls,
    hits,
    hostNames: () => names,
    resource: web.resource,
    document: web.document,
  };
}
