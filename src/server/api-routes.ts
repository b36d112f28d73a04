/**
 * Writes: adding URLs to monitor and starting a re-crawl cycle. Both need the bearer token the server was
 * started with; a server started without one refuses every write.
 */
import { bearerMatches } from '../util/secret.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hostOf, normalizeUrl } from '../frontier/normalize.ts';
import { entryText, type ServerContext } from './context.ts';
import { runCycle } from '../recrawl/cycle.ts';

/** Sends 403/401 and returns false unless the request carries the configured token. */
async function authorised(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  if (!ctx.token) {
    await reply.code(403).type('text/plain').send('writes are disabled: start the server with --token T (or DATAMONITOR_TOKEN) to allow them\n');
    return false;
  }
  if (!bearerMatches(req.headers.authorization, ctx.token)) {
    await reply.code(401).header('www-authenticate', 'Bearer realm="datamonitor"').type('text/plain').send('this write needs the header Authorization: Bearer <token>\n');
    return false;
  }
  return true;
}

/** Accepts `{"urls": [...]}`, a JSON array, or text with one URL a line. */
function urlsOf(body: unknown): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object' && Array.isArray((body as { urls?: unknown }).urls)) return (body as { urls: unknown[] }).urls;
  if (typeof body === 'string') return body.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  return undefined;
}

export function registerApiRoutes(app: FastifyInstance, ctx: ServerContext): void {
  let cycle: { startedAt: number; done?: boolean; error?: string } | undefined;

  app.post('/api/urls', async (req, reply) => {
    if (!(await authorised(ctx, req, reply))) return reply;
    const given = urlsOf(req.body);
    if (!given || given.length === 0) return reply.code(400).type('text/plain').send('give the URLs as {"urls": ["http://…", …]}, a JSON array, or text/plain one a line\n');
    const urls: string[] = [];
    const invalid: string[] = [];
    for (const u of given) {
      const n = typeof u === 'string' ? normalizeUrl(u.trim()) : undefined;
      if (n) urls.push(n);
      else invalid.push(entryText(u));
    }
    if (invalid.length) return reply.code(400).send({ error: 'not http(s) URLs', invalid });
    const unique = [...new Set(urls)];
    const added = await ctx.store.addDocuments(unique.map((url) => ({ url, host: hostOf(url), depth: 0 })), { monitored: true, nextFetch: Date.now() });
    // URLs the crawler already knew become monitored too.
    for (const url of unique) {
      const doc = await ctx.store.getDocument(url);
      if (doc && !doc.monitored) await ctx.store.updateDocument(url, { monitored: true, nextFetch: doc.nextFetch ?? Date.now() });
    }
    await ctx.store.flush();
    return reply.code(201).send({ monitored: unique.length, added, urls: unique });
  });

  app.post('/api/cycle', async (req, reply) => {
    if (!(await authorised(ctx, req, reply))) return reply;
    if (cycle && !cycle.done) return reply.code(409).send({ error: 'a cycle is already running', startedAt: new Date(cycle.startedAt).toISOString() });
    const current: NonNullable<typeof cycle> = { startedAt: Date.now() };
    cycle = current;
    // A cycle takes minutes to hours: answer now, the dashboard shows its progress from store.cycles().
    runCycle({ dataDir: ctx.dataDir, store: ctx.store }).then(
      () => (current.done = true),
      (e: Error) => ((current.done = true), (current.error = e.message), app.log.error(e)),
    );
    return reply.code(202).send({ started: new Date(current.startedAt).toISOString() });
  });
}
