import { startServer, type TestServer } from './server.ts';
import { linksOf } from './linked-data-web.ts';
import { realVocabulary, type Vocabulary } from './real-vocabulary.ts';

/**
 * Documents shaped like real Linked Data, served by several hosts on 127.0.0.1 (one port each, so
 * any HTTP client reaches every host without a proxy or name resolution): the crawl benchmark's site.
 * Each document describes one resource (`/doc/N#it`) of a real schema.org class with about 35
 * triples: its own literal properties with real prose as text, labels in two languages, a blank node
 * (a postal address with its own properties), ten links to other documents, mostly on other hosts,
 * and the document's metadata in a second vocabulary (Dublin Core). Terms and prose come from the
 * newest schema.org release in ../shared/data (src/testkit/real-vocabulary.ts), generated without it.
 * src/testkit/linked-data-web.ts is the same shape behind virtual hosts and 303 redirects, for tests
 * of the crawler's Linked Data behaviour; this one is for measuring.
 */
export interface LinkedDataSiteOptions {
  documents: number;
  /** Hosts (ports) the documents are spread over (default 10). */
  hosts?: number;
  /** Links from each document to others (default 10). */
  linksPerDocument?: number;
  seed?: number;
  vocabulary?: Vocabulary;
  /** Each response this long after its request (default 0): a network's round trip, which leaves a crawler's cores idle meanwhile. */
  latencyMs?: number;
}

export interface LinkedDataSite {
  /** Document 0's URL: a crawl from it reaches every document. */
  seed: string;
  /** One origin per host. */
  origins: string[];
  vocabulary: Vocabulary;
  documentUrl(i: number): string;
  /** Requests answered so far, robots.txt included. */
  requests(): number;
  close(): Promise<void>;
}

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const PREFIXES: [string, string][] = [
  ['s', 'http://schema.org/'],
  ['v', 'http://vocab.example.org/ns#'],
  ['dct', 'http://purl.org/dc/terms/'],
  ['rdfs', 'http://www.w3.org/2000/01/rdf-schema#'],
  ['xsd', XSD],
];

/** A prefixed name where Turtle allows a simple one, else the full IRI. */
function name(iri: string): string {
  for (const [p, ns] of PREFIXES) if (iri.startsWith(ns) && /^[A-Za-z][A-Za-z0-9]*$/.test(iri.slice(ns.length))) return `${p}:${iri.slice(ns.length)}`;
  return `<${iri}>`;
}

/** A Turtle string literal: JSON's escapes are Turtle's. */
const str = (s: string) => JSON.stringify(s);

/** The Turtle of document i of a site whose document URLs `doc` gives. */
export function linkedDataDocument(i: number, n: number, doc: (j: number) => string, v: Vocabulary, linksPer = 10, seed = 1): string {
  const links = linksOf(i, n, linksPer, seed);
  const text = (k: number) => {
    const t = v.texts[(i * 31 + k * 7) % v.texts.length]!;
    return t.length > 300 ? `${t.slice(0, 300)}…` : t;
  };
  const value = (range: string, k: number): string => {
    switch (range) {
      case 'date': return `"${2000 + ((i + k) % 26)}-0${1 + ((i + k) % 9)}-1${(i + k) % 10}"^^xsd:date`;
      case 'number': return `${((i * (k + 3)) % 1000) / 4}`;
      case 'boolean': return String((i + k) % 2 === 0);
      default: return str(text(k));
    }
  };
  const cls = v.classes[i % v.classes.length]!;
  const me = `<${doc(i)}#it>`;
  const lines = [
    ...PREFIXES.map(([p, ns]) => `@prefix ${p}: <${ns}> .`),
    '',
    `<${doc(i)}> dct:modified "2026-0${1 + (i % 9)}-1${i % 10}T12:00:00Z"^^xsd:dateTime ; dct:identifier "${i}" ;`,
    `  dct:subject ${me} ; dct:license <https://creativecommons.org/licenses/by/4.0/> .`,
    '',
    `${me} a ${name(cls.iri)} ;`,
    `  rdfs:label ${str(`${cls.iri.replace(/.*[/#]/, '')} ${i}`)}@en, ${str(`${cls.iri.replace(/.*[/#]/, '')} n° ${i}`)}@fr ;`,
    `  rdfs:comment ${str(text(0))} ;`,
    ...cls.literalProperties.slice(0, 12).map((p, k) => `  ${name(p.iri)} ${value(p.range, k + 1)} ;`),
    `  ${name(v.nested.property)} [ a ${name(v.nested.class.iri)} ;`,
    ...v.nested.class.literalProperties.slice(0, 4).map((p, k) => `      ${name(p.iri)} ${p.range === 'text' ? str(`${i} ${['Linked Data Lane', 'Rue du Web', 'Graphstraße'][k % 3]} ${k}`) : value(p.range, k + 20)} ;`),
    '    ] ;',
    ...links.slice(3).map((j, k) => `  ${name(v.linkProperties[(i + k) % v.linkProperties.length]!)} <${doc(j)}#it> ;`),
    `  rdfs:seeAlso ${links.slice(0, 3).map((j) => `<${doc(j)}>`).join(', ')} .`,
  ];
  return lines.join('\n') + '\n';
}

export async function startLinkedDataSite(o: LinkedDataSiteOptions): Promise<LinkedDataSite> {
  const hosts = Math.max(1, Math.min(o.hosts ?? 10, o.documents));
  const v = o.vocabulary ?? realVocabulary();
  const servers: TestServer[] = [];
  let answered = 0;
  const doc = (j: number) => `${servers[j % hosts]!.url}/doc/${j}`;
  for (let h = 0; h < hosts; h++) {
    servers.push(
      await startServer((_req, res, url) => {
        answered++;
        const m = /^\/doc\/(\d+)$/.exec(url.pathname);
        const i = m ? Number(m[1]) : -1;
        if (url.pathname === '/robots.txt') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('User-agent: *\nDisallow: /private/\n');
        } else if (i >= 0 && i < o.documents && i % hosts === h) {
          res.writeHead(200, { 'content-type': 'text/turtle; charset=utf-8' });
          res.end(linkedDataDocument(i, o.documents, doc, v, o.linksPerDocument, o.seed));
        } else {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('not found');
        }
      }, { latencyMs: o.latencyMs }),
    );
  }
  // The servers record every request for tests; a long benchmark must not keep them.
  const forget = setInterval(() => { for (const s of servers) s.requests.length = 0; }, 1_000);
  forget.unref();
  return {
    seed: doc(0),
    origins: servers.map((s) => s.url),
    vocabulary: v,
    documentUrl: doc,
    requests: () => answered,
    close: async () => {
      clearInterval(forget);
      await Promise.all(servers.map((s) => s.close()));
    },
  };
}
