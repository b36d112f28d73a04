/**
 * What this archive tells the federation (seed 000, section 2: units exchange their capacity and
 * which URLs they hold): GET /api/federation/capacity and GET /api/federation/holdings. Read-only
 * and public, like the TimeMaps they help route. Formats: docs/federation.md.
 */
import type { FastifyInstance } from 'fastify';
import { capacityDocument } from '../federation/capacity.ts';
import { HoldingsIndex } from '../federation/holdings.ts';
import type { ServerContext } from './context.ts';

export function registerFederationRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const holdings = new HoldingsIndex(ctx.store);
  // Build the filter when the server starts, not on the first aggregator's request.
  app.addHook('onReady', async () => {
    void holdings.catchUp().catch((e: Error) => app.log.error(`federation holdings: ${e.message}`));
  });

  app.get('/api/federation/capacity', async (req, reply) => {
    const doc = await capacityDocument({ dataDir: ctx.dataDir, store: ctx.store, base: ctx.publicUrl(), writable: Boolean(ctx.token) });
    return reply.header('cache-control', 'no-cache').send(doc);
  });

  app.get('/api/federation/holdings', async (req, reply) => {
    await holdings.catchUp();
    reply.header('cache-control', 'no-cache');
    const given = req.headers['if-none-match'];
    if (given && given.split(',').some((t) => t.trim() === `"${holdings.version}"`)) return reply.code(304).header('etag', `"${holdings.version}"`).send();
    const doc = await holdings.document();
    return reply.header('etag', `"${doc.lastLogId}-${doc.bloom.m}"`).send(doc);
  });
}
