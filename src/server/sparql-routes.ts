/**
 * The SPARQL 1.1 Protocol (query operation only) at /sparql, over the archive as it is now or as it was
 * at `at=` (ISO 8601). Updates are refused: the archive changes only by crawling.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { analyseQuery, formatsFor, mediaTypeOf, type ResultFormat } from '../query/index.ts';
import { locationOf } from '../query/engine/index.ts';
import { UserError } from '../util/errors.ts';
import { parseTime } from '../util/units.ts';
import type { ServerContext } from './context.ts';
import { preferred } from './negotiate.ts';

const UPDATE_REFUSED = 'SPARQL updates are refused: this archive is read-only and changes only by crawling (use POST /api/urls to monitor more URLs)';

const FORM = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>SPARQL</title></head><body style="font-family:sans-serif">
<h1>SPARQL over the archive</h1><form method="get" action="/sparql">
<textarea name="query" rows="10" cols="90">SELECT ?g (COUNT(*) AS ?triples) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g</textarea><br>
<label>as it was at <input name="at" placeholder="2025-01-01T00:00:00Z"></label> (ISO 8601; empty for now)
<label>results <select name="format"><option>json</option><option>csv</option><option>tsv</option><option>xml</option></select></label>
<button>Run</button></form><p><a href="/">dashboard</a></p></body></html>
`;

type Params = Record<string, string | string[] | undefined>;

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
const many = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The query, its parameters, and where they came from (GET query string, form body, or a sparql-query body). */
function protocolRequest(req: FastifyRequest): { query?: string; params: Params } {
  const params: Params = { ...(req.query as Params) };
  if (req.method === 'POST') {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'application/sparql-update') throw new UserError(UPDATE_REFUSED);
    if (type === 'application/sparql-query') return { query: String(req.body ?? ''), params };
    if (type === 'application/x-www-form-urlencoded') Object.assign(params, req.body as Params);
    else throw new UserError(`POST /sparql takes application/sparql-query or application/x-www-form-urlencoded, not '${type || 'no content type'}'`);
  }
  if (params.update !== undefined) throw new UserError(UPDATE_REFUSED);
  return { query: one(params.query), params };
}

async function answer(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply) {
  const { query, params } = protocolRequest(req);
  if (!query?.trim() && req.method === 'GET' && preferred(req.headers.accept, ['application/sparql-results+json', 'text/html']) === 'text/html') {
    return reply.type('text/html; charset=utf-8').send(FORM);
  }
  if (!query?.trim()) throw new UserError("no query: give query=, e.g. /sparql?query=SELECT%20*%20WHERE%20%7B%20%3Fs%20%3Fp%20%3Fo%20%7D%20LIMIT%2010");
  const shape = analyseQuery(query); // refuses updates and non-queries with a UserError
  const formats = formatsFor(shape.form);
  let format: ResultFormat | undefined;
  const asked = one(params.format);
  if (asked) {
    format = formats.find((f) => f === asked || mediaTypeOf(f) === asked);
    if (!format) throw new UserError(`format '${asked}' does not fit a ${shape.form.toUpperCase()} query: use one of ${formats.join(', ')}`);
  } else {
    const type = preferred(req.headers.accept, formats.map(mediaTypeOf));
    format = formats.find((f) => mediaTypeOf(f) === type);
    if (!format) return reply.code(406).type('text/plain').send(`none of the Accept types can carry ${shape.form.toUpperCase()} results: use one of ${formats.map(mediaTypeOf).join(', ')}\n`);
  }
  const atText = one(params.at);
  const at = atText ? parseTime(atText, 'at') : undefined;
  const graphs = many(params['default-graph-uri']);
  const archive = await ctx.index.current();
  // A client that goes away stops its query: a query still evaluating ends its process.
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  const result = await ctx.engine.run(locationOf(archive), query, { at, format, graphs: graphs.length ? graphs : undefined }, gone.signal);
  return reply
    .header('vary', 'accept')
    .header('x-archive-datetime', new Date(result.at).toISOString())
    .header('content-length', String(result.bytes))
    .type(`${result.mediaType}; charset=utf-8`)
    .send(result.body);
}

export function registerSparqlRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.addContentTypeParser(['application/sparql-query', 'application/sparql-update'], { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    const params: Params = {};
    for (const [k, v] of new URLSearchParams(String(body))) params[k] = params[k] === undefined ? v : [...many(params[k]), v];
    done(null, params);
  });
  app.get('/sparql', (req, reply) => answer(ctx, req, reply));
  app.post('/sparql', (req, reply) => answer(ctx, req, reply));
}
