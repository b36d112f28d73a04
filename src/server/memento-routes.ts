import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatLinkFormat } from '../federation/link-format.ts';
import { baseUrl, targetAfter, type ServerContext } from './context.ts';
import { preferred } from './negotiate.ts';
import {
  archivedUrlKey, closestMemento, httpDate, linkHeader, mementoLinks, mementosOf, mementoUris, originalResponse,
  parseTimestamp, timegateLinks, timemapJson, timemapLinks, versionNQuads, type Memento,
} from './mementos.ts';

/** Response headers of the original that a replay must not copy: they describe the original transfer. */
const NOT_REPLAYED = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'content-type', 'content-encoding', 'set-cookie', 'date']);
const NQUADS = 'application/n-quads';

interface Lookup {
  original: string;
  list: Memento[];
}

/** The mementos of the URL in the request target, or a 400/404 already sent. */
async function lookup(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply, target: string): Promise<Lookup | undefined> {
  const original = archivedUrlKey(target);
  if (!original) {
    await reply.code(400).type('text/plain').send(`'${target}' is not an http(s) URL: use ${req.routeOptions.url?.replace('*', '<url>')}\n`);
    return undefined;
  }
  const list = await mementosOf(ctx.store, original);
  if (list.length === 0) {
    await reply.code(404).type('text/plain').send(`no memento of ${original} in this archive\n`);
    return undefined;
  }
  return { original, list };
}

export function registerMementoRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/timegate/*', async (req, reply) => {
    const found = await lookup(ctx, req, reply, targetAfter(req, /^\/timegate\//));
    if (!found) return reply;
    const u = mementoUris(baseUrl(req), found.original);
    const asked = req.headers['accept-datetime'];
    let time = Date.now();
    if (asked !== undefined) {
      time = Date.parse(String(asked));
      if (Number.isNaN(time)) {
        return reply.code(400).header('vary', 'accept-datetime').header('link', linkHeader(timegateLinks(u))).type('text/plain')
          .send(`Accept-Datetime '${asked}' is not an HTTP date (e.g. Thu, 01 Jan 2025 00:00:00 GMT)\n`);
      }
    }
    const m = closestMemento(found.list, time);
    return reply.code(302).header('location', u.memento(m)).header('vary', 'accept-datetime').header('link', linkHeader(timegateLinks(u))).send();
  });

  app.get('/timemap/link/*', async (req, reply) => {
    const found = await lookup(ctx, req, reply, targetAfter(req, /^\/timemap\/link\//));
    if (!found) return reply;
    return reply.type('application/link-format').send(formatLinkFormat(timemapLinks(mementoUris(baseUrl(req), found.original), found.list)));
  });

  app.get('/timemap/json/*', async (req, reply) => {
    const found = await lookup(ctx, req, reply, targetAfter(req, /^\/timemap\/json\//));
    if (!found) return reply;
    return reply.type('application/json').send(timemapJson(mementoUris(baseUrl(req), found.original), found.list));
  });

  app.get('/memento/:timestamp/*', async (req, reply) => {
    const { timestamp } = req.params as { timestamp: string };
    const time = parseTimestamp(timestamp);
    if (time === undefined) return reply.code(400).type('text/plain').send(`'${timestamp}' is not a timestamp: use 14 digits, yyyyMMddHHmmss (UTC)\n`);
    let target = targetAfter(req, /^\/memento\/\d+\//);
    // `?format=nquads` is this server's, unless it belongs to an archived URL.
    let wantRdf = false;
    const fmt = /[?&]format=nquads$/.exec(target);
    if (fmt && (await mementosOf(ctx.store, archivedUrlKey(target) ?? target)).length === 0) {
      target = target.slice(0, fmt.index);
      wantRdf = true;
    }
    const found = await lookup(ctx, req, reply, target);
    if (!found) return reply;
    const u = mementoUris(baseUrl(req), found.original);
    const index = found.list.findIndex((m) => m.timestamp === timestamp);
    if (index < 0) {
      // Not an exact memento: send the client to the closest one, as Wayback machines do.
      const closest = u.memento(closestMemento(found.list, time));
      return reply.code(302).header('location', wantRdf ? `${closest}${closest.includes('?') ? '&' : '?'}format=nquads` : closest).send();
    }
    const m = found.list[index]!;
    wantRdf ||= preferred(req.headers.accept, [m.entry.mediaType || 'application/octet-stream', NQUADS]) === NQUADS;
    reply.header('memento-datetime', httpDate(m.entry.time)).header('link', linkHeader(mementoLinks(u, found.list, index))).header('vary', 'accept');
    if (wantRdf) {
      const nquads = versionNQuads(ctx.dataDir, found.list, index);
      if (nquads === undefined) return reply.code(404).type('text/plain').send(`no RDF was found in ${found.original} at ${httpDate(m.entry.time)}\n`);
      return reply.type(NQUADS).send(nquads);
    }
    const res = await originalResponse(ctx.dataDir, ctx.store, found.list, index);
    for (const [k, v] of res.headers) {
      const name = k.toLowerCase();
      if (name === 'content-type' || name === 'content-encoding') reply.header(name, v);
      else if (!NOT_REPLAYED.has(name)) reply.header(`x-archive-orig-${name}`, v);
    }
    // Archived pages must not run scripts with this server's origin (the dashboard and the write API live here).
    reply.header('content-security-policy', 'sandbox');
    // A 3xx replayed with its Location would send the client off the archive: keep the status, say where it went.
    return reply.code(res.status >= 200 && res.status < 600 ? res.status : 200).send(res.body);
  });
}
