/**
 * The archive describing itself: a VoID description (https://www.w3.org/TR/void/) at /.well-known/void, the
 * location VoID §7.2 names, and the SPARQL 1.1 Service Description
 * (https://www.w3.org/TR/sparql11-service-description/) that GET /sparql answers without a query.
 *
 * Both say only what the server really does. The endpoint's features are checked against the engine:
 * sd:UnionDefaultGraph because a query without FROM / FROM NAMED or protocol dataset runs with Oxigraph's
 * `use_default_graph_as_union` (src/query/sparql.ts); no sd:BasicFederatedQuery, because the engine has no
 * SERVICE handler and refuses such a query; no sd:DereferencesURIs, because FROM <IRI> only selects graphs
 * the archive holds. No void:dataDump (the server has no export route: `datamonitor export` writes files) and
 * no void:uriLookupEndpoint: /timegate/ looks up documents by their exact URL, not the resources VoID's
 * look-up is for (an entity IRI such as http://example.org/alice is in no archived URL).
 *
 * JSON-LD is not offered: the project's dependencies parse JSON-LD but none writes it, so Turtle (the
 * default) and N-Triples, both written by n3.
 */
import N3 from 'n3';
import type { BlankNode, Quad, Quad_Subject } from '@rdfjs/types';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hostOf } from '../frontier/normalize.ts';
import { type GraphSummary, NOW, type QuadRow, type ResultFormat } from '../query/index.ts';
import { GRAPH_INDEX, graphIndexLine } from '../query/sparql.ts';
import { currentArchive, type ServerContext } from './context.ts';
import { preferred } from './negotiate.ts';
import { COMPRESSED } from './compression.ts';
import { LDES_PATH } from './ldes.ts';
import { COMMON_PREFIXES as P } from '../query/prefixes.ts';

const { namedNode, blankNode, literal, quad } = N3.DataFactory;

const NS = {
  rdf: P.rdf,
  rdfs: P.rdfs,
  xsd: P.xsd,
  void: P.void,
  sd: 'http://www.w3.org/ns/sparql-service-description#',
  dcterms: P.dcterms,
  dcat: P.dcat,
  foaf: P.foaf,
  formats: 'http://www.w3.org/ns/formats/',
} as const;

export const VOID_PATH = '/.well-known/void';
export const SPARQL_PATH = '/sparql';

/** The media types the descriptions are written in, the default first. */
export const DESCRIPTION_TYPES = ['text/turtle', 'application/n-triples'] as const;
export type DescriptionType = (typeof DESCRIPTION_TYPES)[number];

/**
 * The W3C format IRI (https://www.w3.org/ns/formats/) of each result format /sparql serves: a Record, so that
 * a format added to src/query/results/formats.ts does not compile until the description names it.
 */
const FORMAT_IRIS: Record<ResultFormat, string> = {
  json: 'SPARQL_Results_JSON',
  xml: 'SPARQL_Results_XML',
  csv: 'SPARQL_Results_CSV',
  tsv: 'SPARQL_Results_TSV',
  turtle: 'Turtle',
  ntriples: 'N-Triples',
  rdfxml: 'RDF_XML',
  jsonld: 'JSON-LD',
  nquads: 'N-Quads',
};

/**
 * The archive's query interfaces besides /sparql, each described as a dcat:DataService of the archive's dataset
 * once its routes exist: an entry is added here with the route, never before, so that the description names no
 * URL that answers 404.
 * `path` is below the public URL; `conformsTo` the specification the interface implements.
 */
export const QUERY_INTERFACES: ReadonlyArray<{ path: string; title: string; conformsTo: string }> = [
  { path: SPARQL_PATH, title: 'SPARQL 1.1 Protocol (query), at any past instant with at=', conformsTo: 'https://www.w3.org/TR/sparql11-protocol/' },
  { path: '/fragments', title: 'Triple Pattern Fragments, at any past instant through its Memento TimeGate (Accept-Datetime)', conformsTo: 'https://www.hydra-cg.com/spec/latest/triple-pattern-fragments/' },
  { path: LDES_PATH, title: 'Linked Data Event Stream of every change of every document, fragmented by time (TREE)', conformsTo: 'https://w3id.org/ldes/specification' },
];

/** Named graphs listed one by one in the service description up to this many; past it, none (an rdfs:comment says how they are named). */
export const NAMED_GRAPHS_LISTED = 1000;

interface Counts {
  documents: number;
  /** Triples valid now, summed over the documents (a triple in two documents counts twice, as in the count totals). */
  triples: number;
  /** The first and last version (capture with RDF, or deletion), epoch ms; undefined for an empty archive. */
  first?: number;
  last?: number;
}

export interface ArchiveSummary extends Counts {
  hosts: Array<Counts & { host: string }>;
  /** The IRIs GRAPH ?g binds now (documents, quad formats' named graphs, dm:graphs); undefined past NAMED_GRAPHS_LISTED. */
  namedGraphs?: string[];
  /** The `G dm:inDocument D` statements a query sees besides the documents' triples (src/query/sparql.ts graphIndexLine). */
  graphStatements: number;
}

/**
 * Computed once per write generation of the versioned store and kept: graphs() is one GROUP BY over the version
 * log (a row a version) and namedGraphsAt one range of the named-graph index, so a request between two writes
 * costs a generation read (SQLite's data_version, a meta row in PostgreSQL) and no scan. The maintained count
 * totals (src/versions/count-totals.ts) would give the whole archive's triples without it, but not per host.
 */
const summaries = new WeakMap<ServerContext, { generation: string; summary: Promise<ArchiveSummary> }>();

export async function archiveSummary(ctx: ServerContext): Promise<ArchiveSummary> {
  const archive = await currentArchive(ctx);
  const generation = archive.generation;
  const hit = summaries.get(ctx);
  if (hit?.generation === generation) return hit.summary;
  const summary = Promise.resolve().then(() => summarise(archive.graphs(), archive.namedGraphsAt(NOW)));
  summaries.set(ctx, { generation, summary });
  summary.catch(() => summaries.delete(ctx));
  return summary;
}

function summarise(graphs: GraphSummary[], named: QuadRow[]): ArchiveSummary {
  const whole: Counts = { documents: 0, triples: 0 };
  const hosts = new Map<string, Counts & { host: string }>();
  const names = new Set<string>();
  for (const g of graphs) {
    const host = hostOf(g.graph);
    let h = hosts.get(host);
    if (!h) hosts.set(host, (h = { host, documents: 0, triples: 0 }));
    for (const c of [whole, h]) {
      // A deleted document's span still counts (its deletion is a capture) but it is no document now.
      c.first = Math.min(c.first ?? g.firstTime, g.firstTime);
      c.last = Math.max(c.last ?? g.lastTime, g.lastTime);
      if (g.deleted) continue;
      c.documents++;
      c.triples += g.triples;
    }
    // A document whose quads are all in named graphs (TriG) is listed too: GRAPH ?g does not bind it, but
    // FROM <document> takes its whole dataset, so it is a graph a client may name.
    if (!g.deleted && g.triples > 0) names.add(g.graph);
  }
  // Named graphs of TriG and N-Quads documents (IRIs only: a blank node names no graph a client can ask for),
  // and the graph that says which document each is in.
  for (const r of named) if (r.namedGraph?.startsWith('<')) names.add(r.namedGraph.slice(1, -1));
  const statements = new Set(named.map(graphIndexLine).filter((line) => line !== undefined));
  if (statements.size > 0) names.add(GRAPH_INDEX);
  return {
    ...whole,
    graphStatements: statements.size,
    hosts: [...hosts.values()].sort((x, y) => x.host.localeCompare(y.host)),
    namedGraphs: names.size <= NAMED_GRAPHS_LISTED ? [...names].sort() : undefined,
  };
}

// ---- the descriptions as triples ------------------------------------------------------------------------

const iri = (ns: keyof typeof NS, local: string) => namedNode(NS[ns] + local);
const a = iri('rdf', 'type');
const int = (n: number) => literal(String(n), iri('xsd', 'integer'));
const dateTime = (t: number) => literal(new Date(t).toISOString(), iri('xsd', 'dateTime'));

/** The IRIs both descriptions use, under the server's public URL. */
export function describedIris(base: string) {
  return {
    voidDocument: `${base}${VOID_PATH}`,
    dataset: `${base}${VOID_PATH}#archive`,
    host: (host: string) => `${base}${VOID_PATH}#host-${encodeURIComponent(host)}`,
    endpoint: `${base}${SPARQL_PATH}`,
    service: `${base}${SPARQL_PATH}#service`,
  };
}

/**
 * Blank nodes labelled in the order a description makes them, not by N3's process-wide counter: the same
 * archive gives the same bytes at every request (an ETag, a cache, a client comparing two fetches).
 */
function labeller(): () => BlankNode {
  let n = 0;
  return () => blankNode(`b${n++}`);
}

/** void:triples, void:documents and the span of the captures, of the whole archive or one host. */
function countQuads(subject: Quad_Subject, c: Counts, bnode: () => BlankNode): Quad[] {
  const out = [quad(subject, iri('void', 'triples'), int(c.triples)), quad(subject, iri('void', 'documents'), int(c.documents))];
  if (c.first !== undefined && c.last !== undefined) {
    // DCAT's way of stating a dataset's temporal coverage (dcterms:temporal, a dcterms:PeriodOfTime with
    // dcat:startDate / dcat:endDate): the archive covers the web from its first capture to its last.
    // dcterms:created would say when the dataset was made, not what time it covers; dcterms:modified is
    // the last change, which the last capture also is.
    const period = bnode();
    out.push(
      quad(subject, iri('dcterms', 'temporal'), period), quad(period, a, iri('dcterms', 'PeriodOfTime')),
      quad(period, iri('dcat', 'startDate'), dateTime(c.first)), quad(period, iri('dcat', 'endDate'), dateTime(c.last)),
      quad(subject, iri('dcterms', 'modified'), dateTime(c.last)),
    );
  }
  return out;
}

/** The VoID description: the archive's dataset, a void:subset a host, its SPARQL endpoint and query interfaces. */
export function voidQuads(base: string, s: ArchiveSummary): Quad[] {
  const i = describedIris(base);
  const bnode = labeller();
  const doc = namedNode(i.voidDocument);
  const ds = namedNode(i.dataset);
  const out: Quad[] = [
    quad(doc, a, iri('void', 'DatasetDescription')),
    quad(doc, iri('dcterms', 'title'), literal('VoID description of this datamonitor archive')),
    quad(doc, iri('foaf', 'primaryTopic'), ds),
    quad(ds, a, iri('void', 'Dataset')),
    quad(ds, iri('dcterms', 'title'), literal('datamonitor archive')),
    quad(ds, iri('dcterms', 'description'), literal('Linked Data documents crawled and kept in every version; each document is a named graph (its URL), the default graph is their union.')),
    quad(ds, iri('void', 'sparqlEndpoint'), namedNode(i.endpoint)),
    ...countQuads(ds, s, bnode),
  ];
  for (const q of QUERY_INTERFACES) {
    const service = bnode();
    out.push(
      quad(service, a, iri('dcat', 'DataService')), quad(service, iri('dcterms', 'title'), literal(q.title)),
      quad(service, iri('dcat', 'endpointURL'), namedNode(base + q.path)), quad(service, iri('dcterms', 'conformsTo'), namedNode(q.conformsTo)),
      quad(service, iri('dcat', 'servesDataset'), ds),
    );
  }
  for (const h of s.hosts) {
    const subset = namedNode(i.host(h.host));
    out.push(
      quad(ds, iri('void', 'subset'), subset), quad(subset, a, iri('void', 'Dataset')),
      quad(subset, iri('dcterms', 'title'), literal(`documents of ${h.host}`)), ...countQuads(subset, h, bnode),
    );
  }
  return out;
}

/** The SPARQL 1.1 Service Description of /sparql: what it accepts, answers and holds. */
export function serviceQuads(base: string, s: ArchiveSummary): Quad[] {
  const i = describedIris(base);
  const service = namedNode(i.service);
  const ds = namedNode(i.dataset);
  const bnode = labeller();
  const defaultGraph = bnode();
  const out: Quad[] = [
    quad(service, a, iri('sd', 'Service')),
    quad(service, iri('sd', 'endpoint'), namedNode(i.endpoint)),
    quad(service, iri('sd', 'supportedLanguage'), iri('sd', 'SPARQL11Query')),
    quad(service, iri('sd', 'feature'), iri('sd', 'UnionDefaultGraph')),
    ...Object.values(FORMAT_IRIS).map((f) => quad(service, iri('sd', 'resultFormat'), iri('formats', f))),
    quad(service, iri('rdfs', 'comment'), literal('Read-only: updates are refused. at= (ISO 8601) queries the archive as it was at that instant.')),
    // The dataset served is the archive's VoID dataset: its IRI dereferences to the VoID description.
    quad(service, iri('sd', 'defaultDataset'), ds),
    quad(ds, a, iri('sd', 'Dataset')),
    quad(ds, a, iri('void', 'Dataset')),
    quad(ds, iri('rdfs', 'seeAlso'), namedNode(i.voidDocument)),
    quad(ds, iri('sd', 'defaultGraph'), defaultGraph),
    quad(defaultGraph, a, iri('sd', 'Graph')),
    // The union of every graph, as a query sees it: the documents' triples and the statements of dm:graphs.
    quad(defaultGraph, iri('void', 'triples'), int(s.triples + s.graphStatements)),
  ];
  if (s.namedGraphs) {
    for (const name of s.namedGraphs) {
      const g = bnode();
      out.push(quad(ds, iri('sd', 'namedGraph'), g), quad(g, a, iri('sd', 'NamedGraph')), quad(g, iri('sd', 'name'), namedNode(name)));
    }
  } else {
    out.push(quad(ds, iri('rdfs', 'comment'), literal(`More than ${NAMED_GRAPHS_LISTED} named graphs, not listed: each archived document's URL names its graph; the VoID description counts them per host.`)));
  }
  return out;
}

// ---- serialisation and routes ---------------------------------------------------------------------------

export function writeDescription(quads: Quad[], type: DescriptionType): Promise<string> {
  const writer = type === 'text/turtle'
    ? new N3.Writer({ format: 'Turtle', prefixes: Object.fromEntries(Object.entries(NS).filter(([k]) => k !== 'rdf')) })
    : new N3.Writer({ format: 'N-Triples' });
  // Each subject's triples together, subjects in the order first written: Turtle then lists each once.
  const bySubject = new Map<string, Quad[]>();
  for (const q of quads) {
    const key = `${q.subject.termType} ${q.subject.value}`;
    const group = bySubject.get(key);
    if (group) group.push(q);
    else bySubject.set(key, [q]);
  }
  for (const group of bySubject.values()) writer.addQuads(group);
  return new Promise((resolve, reject) => writer.end((err, text) => (err ? reject(err) : resolve(text))));
}

/** Sends a description in the type chosen (a Vary: Accept answer: the type depends on the header). */
export async function sendDescription(reply: FastifyReply, quads: Quad[], type: DescriptionType): Promise<FastifyReply> {
  return reply.header('vary', 'accept').type(`${type}; charset=utf-8`).send(await writeDescription(quads, type));
}

/** The service description of /sparql, for sparql-routes' GET without a query. */
export async function sendServiceDescription(ctx: ServerContext, reply: FastifyReply, type: DescriptionType): Promise<FastifyReply> {
  return sendDescription(reply, serviceQuads(ctx.publicUrl(), await archiveSummary(ctx)), type);
}

export function registerSelfDescription(app: FastifyInstance, ctx: ServerContext): void {
  // Turtle to a client that accepts neither (a browser shows the text; a 406 would help nobody).
  app.get(VOID_PATH, COMPRESSED, async (req: FastifyRequest, reply) => {
    const type = (preferred(req.headers.accept, [...DESCRIPTION_TYPES]) ?? 'text/turtle') as DescriptionType;
    return sendDescription(reply, voidQuads(ctx.publicUrl(), await archiveSummary(ctx)), type);
  });
}
