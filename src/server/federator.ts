/**
 * The federation's web front (`datamonitor federate`): one Memento endpoint for all archives, and
 * one place to submit new URLs.
 *
 *   GET  /timemap/link/<url>, /timemap/json/<url>   the merged TimeMap
 *   GET  /timegate/<url>                            302 to the closest memento in any archive
 *   POST /api/urls                                  new URLs, to archives by capacity (bearer token)
 *   GET  /api/federation/archives                   what each archive published, and which did not answer
 *
 * Every look-up answer names the archives that did not answer: one `Datamonitor-Unanswered` header
 * per archive, one `Datamonitor-Warning` header per problem, and in JSON `archives[].status`.
 */
import { bearerMatches } from '../util/secret.ts';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Federation, submittedUrl, type FederationOptions } from '../federation/federation.ts';
import type { Link } from '../util/link-format.ts';
import { timeMapToJson, timeMapToLinkFormat, type AggregatedTimeMap, type Memento } from '../federation/timemap-aggregator.ts';
import { checkPublicUrl, entryText, listenUrl, targetAfter } from './context.ts';
import { linkHeader } from './mementos.ts';
import { requestTimeoutOptions } from './request-timeout.ts';

export interface FederationServerOptions extends FederationOptions {
  /** Bearer token that allows POST /api/urls; without one, submissions are refused (403). */
  token?: string;
  logger?: boolean;
  /** Absolute base URL of the links it writes (`federate --public-url`); default the address it listens on, never the Host header. */
  publicUrl?: string;
  /** Time a client has to send a whole request (`federate --request-timeout`); default DEFAULT_REQUEST_TIMEOUT_MS. */
  requestTimeoutMs?: number;
}

const httpDate = (ms: number) => new Date(ms).toUTCString();
/** Header values must be one line of visible ASCII. */
const headerSafe = (s: string) => s.replace(/[^\x20-\x7e]/g, '?');

/** Status of a look-up with no memento: 404 when every archive asked answered, 502 when one that may hold it did not. */
function emptyStatus(tm: AggregatedTimeMap): number {
  return tm.archives.some((a) => a.status === 'failed') ? 502 : 404;
}

function problemHeaders(reply: FastifyReply, tm: AggregatedTimeMap): void {
  const failed = tm.archives.filter((a) => a.status === 'failed').map((a) => a.archive);
  if (failed.length) reply.header('datamonitor-unanswered', failed);
  if (tm.warnings.length) reply.header('datamonitor-warning', tm.warnings.map(headerSafe));
}

export async function buildFederationServer(o: FederationServerOptions): Promise<{ app: FastifyInstance; federation: Federation }> {
  const federation = new Federation(o);
  const app = Fastify({ logger: o.logger ?? false, ...requestTimeoutOptions(o.requestTimeoutMs), routerOptions: { maxParamLength: 8192, ignoreDuplicateSlashes: false } });
  // As in `serve`: the Host header is the client's to choose, so it never makes a link (#13).
  let base = o.publicUrl !== undefined ? checkPublicUrl(o.publicUrl) : 'http://localhost';
  if (o.publicUrl === undefined) {
    app.addHook('onListen', async () => {
      const a = app.server.address();
      if (a && typeof a === 'object') base = listenUrl(a.address, a.port);
    });
  }

  /** The URL after a route prefix, or a 400 already sent. */
  const target = async (req: FastifyRequest, reply: FastifyReply, prefix: RegExp): Promise<string | undefined> => {
    const url = targetAfter(req, prefix);
    if (/^https?:\/\/[^/?#\s]+/i.test(url)) return url;
    await reply.code(400).type('text/plain').send(`'${url}' is not an absolute http(s) URL: use ${req.routeOptions.url?.replace('*', '<url>')}\n`);
    return undefined;
  };
  const uris = (_req: FastifyRequest, url: string) => {
    return { link: `${base}/timemap/link/${url}`, json: `${base}/timemap/json/${url}`, timegate: `${base}/timegate/${url}` };
  };

  for (const format of ['link', 'json'] as const) {
    app.get(`/timemap/${format}/*`, async (req, reply) => {
      const url = await target(req, reply, new RegExp(`^/timemap/${format}/`));
      if (url === undefined) return reply;
      const tm = await federation.timeMap(url);
      const u = uris(req, url);
      problemHeaders(reply, tm);
      reply.code(tm.mementos.length ? 200 : emptyStatus(tm));
      return format === 'link'
        ? reply.type('application/link-format').send(timeMapToLinkFormat(tm, u.link, u.timegate))
        : reply.type('application/json').send(JSON.stringify({ ...timeMapToJson(tm, u), timegate_uri: u.timegate }, null, 2));
    });
  }

  app.get('/timegate/*', async (req, reply) => {
    const url = await target(req, reply, /^\/timegate\//);
    if (url === undefined) return reply;
    const u = uris(req, url);
    const links: Link[] = [{ uri: url, params: { rel: 'original' } }, { uri: u.link, params: { rel: 'timemap', type: 'application/link-format' } }];
    reply.header('vary', 'accept-datetime');
    const asked = req.headers['accept-datetime'];
    // RFC 7089 4.1.1: without Accept-Datetime the TimeGate gives the most recent memento.
    let time = Date.now();
    if (asked !== undefined) {
      time = Date.parse(String(asked));
      if (Number.isNaN(time)) {
        return reply.code(400).header('link', linkHeader(links)).type('text/plain')
          .send(`Accept-Datetime '${asked}' is not an HTTP date (e.g. Thu, 01 Jan 2025 00:00:00 GMT)\n`);
      }
    }
    const { tm, memento } = await federation.timeGate(url, time);
    problemHeaders(reply, tm);
    if (!memento) {
      return reply.code(emptyStatus(tm)).header('link', linkHeader(links)).type('text/plain')
        .send(tm.archives.some((a) => a.status === 'failed')
          ? `no archive that answered holds ${url}; ${tm.archives.filter((a) => a.status === 'failed').map((a) => a.archive).join(', ')} did not answer\n`
          : `no archive of the federation holds ${url}\n`);
    }
    const first = tm.mementos[0]!;
    const last = tm.mementos[tm.mementos.length - 1]!;
    const mementoLink = (m: Memento, rel: string): Link => ({ uri: m.uri, params: { rel, datetime: httpDate(m.datetime) } });
    const rel = (m: Memento) => [m === first ? 'first' : '', m === last ? 'last' : '', 'memento'].filter(Boolean).join(' ');
    for (const m of new Set([first, memento, last])) links.push(mementoLink(m, rel(m)));
    return reply.code(302).header('location', memento.uri).header('link', linkHeader(links)).send();
  });

  app.post('/api/urls', async (req, reply) => {
    if (!o.token) return reply.code(403).type('text/plain').send('submissions are disabled: start federate with --token T (or DATAMONITOR_TOKEN) to allow them\n');
    if (!bearerMatches(req.headers.authorization, o.token)) {
      return reply.code(401).header('www-authenticate', 'Bearer realm="datamonitor-federation"').type('text/plain').send('a submission needs the header Authorization: Bearer <token>\n');
    }
    const body = req.body;
    const given = Array.isArray(body) ? body
      : body && typeof body === 'object' && Array.isArray((body as { urls?: unknown }).urls) ? (body as { urls: unknown[] }).urls
      : typeof body === 'string' ? body.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
      : undefined;
    if (!given || given.length === 0) return reply.code(400).type('text/plain').send('give the URLs as {"urls": ["http://…", …]}, a JSON array, or text/plain one a line\n');
    const urls: string[] = [];
    const invalid: string[] = [];
    for (const g of given) {
      const u = submittedUrl(g);
      if (u) urls.push(u);
      else invalid.push(entryText(g));
    }
    // All or nothing on bad input: the client fixes the list and sends it again, nothing half-placed.
    if (invalid.length) return reply.code(400).send({ error: 'not http(s) URLs: nothing was submitted', invalid });
    const result = await federation.submit([...new Set(urls)]);
    return reply.code(result.unplaced.length ? 502 : 201).send(result);
  });

  app.get('/api/federation/archives', async (req, reply) => {
    const force = (req.query as { refresh?: string }).refresh !== undefined;
    const states = await federation.states(force);
    return reply.send({
      archives: states.map((s) => ({
        archive: s.archive,
        checkedAt: s.checkedAt ? new Date(s.checkedAt).toISOString() : null,
        answered: Boolean(s.capacity || s.holdings),
        capacity: s.capacity ?? null,
        capacityError: s.capacityError ?? null,
        holdings: s.holdings ? { urls: s.holdings.urls, lastLogId: s.holdings.lastLogId } : null,
        holdingsError: s.holdingsError ?? null,
      })),
    });
  });

  app.get('/', async (_req, reply) => {
    return reply.type('text/plain').send([
      `datamonitor federation of ${federation.archives.length} archives`,
      `  TimeMap   ${base}/timemap/link/<url>   ${base}/timemap/json/<url>`,
      `  TimeGate  ${base}/timegate/<url>   (Accept-Datetime)`,
      `  submit    POST ${base}/api/urls   (Authorization: Bearer <token>; {"urls": [...]})`,
      `  archives  ${base}/api/federation/archives`,
      '',
    ].join('\n'));
  });
  return { app, federation };
}
