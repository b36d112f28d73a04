/**
 * CORS for the read-only endpoints, so that browser clients on other origins (YASGUI, Memento tools)
 * can read the archive: SPARQL (GET and POST: a query changes nothing), Memento, CDX, Triple Pattern Fragments, the VoID description and the LDES. Any origin may
 * read, without credentials (`*`); the token-guarded write API and the dashboard get no CORS headers.
 * Done with a hook and a few OPTIONS routes instead of @fastify/cors: no dependency for five headers.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Path prefixes of the read-only routes, and the methods a browser may use on them. */
const READ_ONLY: Array<{ prefix: string; exact?: boolean; methods: string }> = [
  { prefix: '/sparql', exact: true, methods: 'GET, HEAD, POST, OPTIONS' },
  { prefix: '/cdx', exact: true, methods: 'GET, HEAD, OPTIONS' },
  { prefix: '/timegate/', methods: 'GET, HEAD, OPTIONS' },
  { prefix: '/timemap/', methods: 'GET, HEAD, OPTIONS' },
  { prefix: '/memento/', methods: 'GET, HEAD, OPTIONS' },
  { prefix: '/.well-known/void', exact: true, methods: 'GET, HEAD, OPTIONS' },
  // Comunica in a browser (the Linked Data Fragments client's home) reads fragments from any origin.
  { prefix: '/fragments', methods: 'GET, HEAD, OPTIONS' },
  { prefix: '/ldes', exact: true, methods: 'GET, HEAD, OPTIONS' },
  { prefix: '/ldes/version/', methods: 'GET, HEAD, OPTIONS' },
];

/** Headers a script may read besides the CORS-safelisted ones: the archive's time and Memento links. */
const EXPOSED = 'Link, Memento-Datetime, Vary, X-Archive-Datetime, Content-Location';

function routeOf(req: FastifyRequest): (typeof READ_ONLY)[number] | undefined {
  const path = (req.raw.url ?? '').split('?')[0]!;
  return READ_ONLY.find((r) => (r.exact ? path === r.prefix : path.startsWith(r.prefix)));
}

export function registerCors(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    const route = routeOf(req);
    if (!route?.methods.includes(req.method)) return payload;
    // Errors too: a script should read the 400's message, not a network error.
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', EXPOSED);
    return payload;
  });
  const preflight = async (req: FastifyRequest, reply: FastifyReply) => {
    const route = routeOf(req)!;
    const asked = req.headers['access-control-request-headers'];
    return reply
      .code(204)
      .header('access-control-allow-methods', route.methods)
      // Echoing what the browser asks is safe without credentials; Accept-Datetime and Content-Type are the usual ones.
      .header('access-control-allow-headers', typeof asked === 'string' && asked.trim() ? asked : 'Accept, Accept-Datetime, Content-Type')
      .header('access-control-max-age', '86400')
      .header('vary', 'Access-Control-Request-Headers')
      .send();
  };
  for (const r of READ_ONLY) app.options(r.exact ? r.prefix : `${r.prefix}*`, preflight);
}
