import type { FastifyInstance } from 'fastify';
import { currentArchive, targetAfter, type ServerContext } from './context.ts';
import { preferred } from './negotiate.ts';
import { COMPRESSED } from './compression.ts';
import { LDES_PAGE_SIZE, LDES_PATH, buildFragment, memberDocument, parseFragmentQuery, writeFragment } from './ldes.ts';

/**
 * TriG first: a member's graph is a named graph, which N-Quads also carries and Turtle or N-Triples cannot
 * (a client that accepts neither gets TriG, as a browser gets Turtle from /.well-known/void).
 */
const TYPES = { 'application/trig': 'trig', 'application/n-quads': 'nquads' } as const;
/** A closed fragment never changes; an open one (the root, today's windows) is fetched again when polled. */
const CLOSED_CACHE = 'public, max-age=31536000, immutable';
const OPEN_CACHE = 'public, max-age=60';

/** The archive's Linked Data Event Stream at /ldes (ldes.ts says what it holds and how it is fragmented). */
export function registerLdesRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get(LDES_PATH, COMPRESSED, async (req, reply) => {
    const asked = parseFragmentQuery(req.query as Record<string, unknown>);
    if (typeof asked === 'string') return reply.code(400).type('text/plain').send(asked + '\n');
    const type = (preferred(req.headers.accept, Object.keys(TYPES)) ?? 'application/trig') as keyof typeof TYPES;
    const archive = await currentArchive(ctx);
    const fragment = buildFragment(archive, ctx.publicUrl(), asked, { pageSize: ctx.ldesPageSize ?? LDES_PAGE_SIZE, now: Date.now() });
    return reply.type(type).header('vary', 'accept').header('cache-control', fragment.closed ? CLOSED_CACHE : OPEN_CACHE).send(writeFragment(fragment, TYPES[type]));
  });

  // A member's IRI: the version's description and graph, as its page lists it. Members never change.
  app.get(`${LDES_PATH}/version/:time/*`, COMPRESSED, async (req, reply) => {
    const { time } = req.params as { time: string };
    const at = /Z$/.test(time) ? Date.parse(time) : Number.NaN;
    const document = targetAfter(req, /^\/ldes\/version\/[^/]+\//);
    if (!Number.isFinite(at) || !/^https?:\/\//.test(document)) {
      return reply.code(400).type('text/plain').send(`use ${LDES_PATH}/version/<xsd:dateTime in UTC, e.g. 2025-01-01T00:00:00.000Z>/<document URL>, as the stream's members are named\n`);
    }
    const member = memberDocument(await currentArchive(ctx), ctx.publicUrl(), at, document);
    if (!member) return reply.code(404).type('text/plain').send(`no change of ${document} at ${time} in this archive: the stream's members are listed from ${LDES_PATH}\n`);
    const type = (preferred(req.headers.accept, Object.keys(TYPES)) ?? 'application/trig') as keyof typeof TYPES;
    return reply.type(type).header('vary', 'accept').header('cache-control', CLOSED_CACHE).send(writeFragment(member, TYPES[type]));
  });
}
