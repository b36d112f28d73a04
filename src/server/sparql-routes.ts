/**
 * The SPARQL 1.1 Protocol (query operation only) at /sparql, over the archive as it is now or as it was
 * at `at=` (ISO 8601). Updates are refused: the archive changes only by crawling.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acceptOffers, analyseQuery, formatFromParam, type LexedQuery, lexQuery, mediaTypeOf, type QueryForm, type ResultFormat } from '../query/index.ts';
import { locationOf } from '../query/engine/index.ts';
import { UserError } from '../util/errors.ts';
import { essenceOf } from '../util/content-type.ts';
import { parseTime } from '../util/units.ts';
import { currentArchive, type ServerContext } from './context.ts';
import { preferred } from './negotiate.ts';
import { COMPRESSED } from './compression.ts';
import { DESCRIPTION_TYPES, type DescriptionType, sendServiceDescription, VOID_PATH } from './self-description.ts';

const UPDATE_REFUSED = 'SPARQL updates are refused: this archive is read-only and changes only by crawling (use POST /api/urls to monitor more URLs)';

const FORM = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>SPARQL</title></head><body style="font-family:sans-serif">
<h1>SPARQL over the archive</h1><form method="get" action="/sparql">
<textarea name="query" rows="10" cols="90">SELECT ?g (COUNT(*) AS ?triples) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g</textarea><br>
<label>as it was at <input name="at" placeholder="2025-01-01T00:00:00Z"></label> (ISO 8601; empty for now)
<label>results <select name="format"><option>json</option><option>csv</option><option>tsv</option><option>xml</option><option>turtle</option><option>jsonld</option></select></label>
<button>Run</button></form><p>Prefixes rdf rdfs owl xsd schema foaf dcterms dc prov skos dcat void sh dm need no declaration.</p>
<p><a href="/sparql?format=turtle">service description</a> · <a href="${VOID_PATH}">VoID description of the archive</a> · <a href="/">dashboard</a></p></body></html>
`;

type Params = Record<string, string | string[] | undefined>;

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
const many = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** An answer other than 400 for a request the protocol does not allow (the server's error handler sends it). */
class ProtocolError extends Error {
  constructor(readonly statusCode: number, message: string) {
    super(message);
  }
}

/** One protocol request, read: what runQuery needs, and the Content-Type to answer with. */
export interface ProtocolQuery {
  /** The query, lexed once for its analysis here and the engine's limits. */
  query: LexedQuery;
  form: QueryForm;
  /** The protocol dataset (default-graph-uri / named-graph-uri); undefined when the request names none. */
  dataset?: { defaultGraphs: string[]; namedGraphs: string[] };
  format: ResultFormat;
  /** The media type to answer with: the one the client's Accept chose (an alias such as application/json included). */
  mediaType: string;
  at?: number;
}

/**
 * Reads a GET or POST /sparql request as SPARQL 1.1 Protocol §2.1 defines it: the query from `query=`
 * (URL or form body) or the body of an application/sparql-query POST, the dataset from default-graph-uri
 * / named-graph-uri (which override the query's FROM / FROM NAMED), the format from `format=` or
 * `output=` when the value fits the query form, otherwise from Accept. A GET without a query is answered
 * with the service description or, for a browser, the HTML form (withoutQuery). Throws UserError (400), or a
 * ProtocolError for 406 / 415.
 */
export function readProtocolRequest(req: FastifyRequest): ProtocolQuery | 'form' | { describe: DescriptionType } {
  const { query, params } = protocolParams(req);
  const instead = !query?.trim() && req.method === 'GET' ? withoutQuery(req, params) : undefined;
  if (instead) return instead;
  if (!query?.trim()) throw new UserError("no query: give query=, e.g. /sparql?query=SELECT%20*%20WHERE%20%7B%20%3Fs%20%3Fp%20%3Fo%20%7D%20LIMIT%2010 (or accept text/turtle for the service description)");
  const lexed = lexQuery(query); // once: for analyseQuery here and the engine's limits (checkQueryText)
  const shape = analyseQuery(lexed); // refuses updates and non-queries with a UserError
  const { format, mediaType } = negotiate(req, params, shape.form);
  const atText = one(params.at);
  const defaultGraphs = many(params['default-graph-uri']).filter((g) => g.trim() !== '');
  const namedGraphs = many(params['named-graph-uri']).filter((g) => g.trim() !== '');
  return {
    query: lexed,
    form: shape.form,
    dataset: defaultGraphs.length || namedGraphs.length ? { defaultGraphs, namedGraphs } : undefined,
    format,
    mediaType,
    at: atText ? parseTime(atText, 'at') : undefined,
  };
}

/**
 * What a GET without a query gets: the SPARQL 1.1 Service Description (§3 of the protocol lets the endpoint
 * answer one) to a client that accepts Turtle or N-Triples, or sends no Accept or a wildcard one (a SPARQL client
 * discovering the service), or asks for it with format=turtle / ntriples (a browser's link); the HTML form to
 * a browser, which prefers text/html. A client accepting only query results keeps the 400 saying to give a query.
 */
function withoutQuery(req: FastifyRequest, params: Params): 'form' | { describe: DescriptionType } | undefined {
  for (const value of many(params.format)) {
    const format = formatFromParam(value, 'construct');
    if (format === 'turtle') return { describe: 'text/turtle' };
    if (format === 'ntriples') return { describe: 'application/n-triples' };
  }
  const chosen = preferred(req.headers.accept, [...DESCRIPTION_TYPES, 'text/html']);
  if (chosen === 'text/html') return 'form';
  return chosen ? { describe: chosen as DescriptionType } : undefined;
}

/** The query, its parameters, and where they came from (GET query string, form body, or a sparql-query body). */
function protocolParams(req: FastifyRequest): { query?: string; params: Params } {
  const params: Params = { ...(req.query as Params) };
  if (req.method === 'POST') {
    const type = essenceOf(req.headers['content-type'] ?? '');
    const body = req.body;
    if (type === 'application/sparql-update') throw new UserError(UPDATE_REFUSED);
    if (type === 'application/sparql-query') return { query: String(body ?? ''), params };
    if (type === 'application/x-www-form-urlencoded') Object.assign(params, body as Params);
    // Some clients POST with every parameter in the URL and no body at all: nothing to misread there.
    else if (type || (body !== undefined && body !== '')) {
      throw new ProtocolError(415, `POST /sparql takes the query as an application/sparql-query body or as query= in an application/x-www-form-urlencoded body, not '${type || 'a body without Content-Type'}'`);
    }
  }
  if (params.update !== undefined) throw new UserError(UPDATE_REFUSED);
  return { query: one(params.query), params };
}

/**
 * The result format: `format=` / `output=` when one of their values fits the query form (SPARQLWrapper
 * sends `format=xml` for every form and means RDF/XML for CONSTRUCT), otherwise the client's Accept.
 */
function negotiate(req: FastifyRequest, params: Params, form: QueryForm): { format: ResultFormat; mediaType: string } {
  for (const value of [...many(params.format), ...many(params.output)]) {
    if (!value.trim()) continue;
    const format = formatFromParam(value, form);
    if (format) return { format, mediaType: mediaTypeOf(format) };
  }
  const offers = acceptOffers(form);
  const chosen = preferred(req.headers.accept, offers.map((o) => o.mediaType));
  const offer = offers.find((o) => o.mediaType === chosen);
  if (!offer) {
    const types = [...new Set(offers.map((o) => o.mediaType))];
    throw new ProtocolError(406, `none of the Accept types can carry ${form.toUpperCase()} results: accept one of ${types.join(', ')} (or give format=)`);
  }
  return offer;
}

async function answer(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply) {
  const request = readProtocolRequest(req);
  if (request === 'form') return reply.header('vary', 'accept').type('text/html; charset=utf-8').send(FORM);
  if ('describe' in request) return sendServiceDescription(ctx, reply, request.describe);
  const { query, dataset, format, at } = request;
  const archive = await currentArchive(ctx);
  // A client that goes away stops its query: a query still evaluating ends its process.
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  const result = await ctx.engine.run(locationOf(archive), query, { at, format, defaultGraphs: dataset?.defaultGraphs, namedGraphs: dataset?.namedGraphs }, gone.signal);
  return reply
    .header('vary', 'accept')
    .header('x-archive-datetime', new Date(result.at).toISOString())
    .header('content-length', String(result.bytes))
    .type(`${request.mediaType}; charset=utf-8`)
    .send(result.body);
}

export function registerSparqlRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // Its own scope: the catch-all body parser (so that a wrong Content-Type gets our 415, not fastify's) is for /sparql only.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(['application/sparql-query', 'application/sparql-update'], { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      const params: Params = {};
      for (const [k, v] of new URLSearchParams(String(body))) params[k] = params[k] === undefined ? v : [...many(params[k]), v];
      done(null, params);
    });
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.get('/sparql', COMPRESSED, (req, reply) => answer(ctx, req, reply));
    // A raised query size limit (serve --query-max-size) takes a body that large (Fastify's default is 1 MiB).
    const bodyLimit = Math.max(1024 ** 2, ctx.engine.options.queryBytes + 64 * 1024);
    scope.post('/sparql', { bodyLimit, ...COMPRESSED }, (req, reply) => answer(ctx, req, reply));
  });
}
