/**
 * Triple Pattern Fragments of the archive (fragments.ts), with Memento as Memento for Linked Data Fragments
 * (Vander Sande et al.) applies it: `/fragments` is the archive now and its own TimeGate (RFC 7089's
 * pattern 1.1: a request with Accept-Datetime is sent on, 302, to the fragment of that instant), and
 * `/fragments/<timestamp>` is the archive as it was at that instant, a dataset of its own whose Hydra
 * controls stay at that instant, so a client that follows them (Comunica) queries one past state throughout.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerContext } from './context.ts';
import { preferred } from './negotiate.ts';
import { COMPRESSED } from './compression.ts';
import { httpDate, linkHeader, parseAcceptDatetime, parseTimestamp, timestampOf } from './mementos.ts';
import { CountCache, FRAGMENT_FORMATS, fragmentUrl, genidBase, readFragment, readFragmentRequest, writeFragment, type FragmentRequest } from './fragments.ts';
import { hiddenAlternates, NOW } from '../query/sparql.ts';
import type { Link } from '../util/link-format.ts';

export function registerFragmentRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const counts = new CountCache();
  app.get('/fragments', COMPRESSED, async (req, reply) => {
    const request = readFragmentRequest(req.query as Record<string, unknown>, genidBase(ctx.publicUrl()));
    const original = fragmentUrl(`${ctx.publicUrl()}/fragments`, request.given, request.page, request.after);
    const links: Link[] = [{ uri: original, params: { rel: 'original timegate' } }];
    reply.header('vary', 'accept, accept-datetime').header('link', linkHeader(links));
    const asked = req.headers['accept-datetime'];
    if (asked === undefined) return answer(ctx, counts, req, reply, request, NOW, `${ctx.publicUrl()}/fragments`, 'the archive now');
    const time = parseAcceptDatetime(asked);
    if (typeof time === 'string') return reply.code(400).type('text/plain').send(time + '\n');
    const archive = await ctx.index.current();
    const first = archive.changePoints({ limit: 1 })[0];
    if (first === undefined) return reply.code(404).type('text/plain').send('the archive holds no version yet: there is no past state to send you to\n');
    // Before the first capture the archive held nothing: as a TimeGate does for a time before its first memento,
    // the client is sent to the first state (the second after the first capture, since stamps are whole seconds).
    const target = time < first ? Math.ceil(first / 1000) * 1000 : Math.min(time, Math.floor(Date.now() / 1000) * 1000);
    return reply.code(302).header('location', fragmentUrl(`${ctx.publicUrl()}/fragments/${timestampOf(target)}`, request.given, request.page, request.after)).send();
  });

  app.get('/fragments/:timestamp', COMPRESSED, async (req, reply) => {
    const { timestamp } = req.params as { timestamp: string };
    const time = parseTimestamp(timestamp);
    if (time === undefined || !/^\d{14}$/.test(timestamp)) {
      return reply.code(400).type('text/plain').send(`'${timestamp}' is not a timestamp: use 14 digits, yyyyMMddHHmmss (UTC), or send Accept-Datetime to /fragments\n`);
    }
    const request = readFragmentRequest(req.query as Record<string, unknown>, genidBase(ctx.publicUrl()));
    const original = fragmentUrl(`${ctx.publicUrl()}/fragments`, request.given, request.page, request.after);
    reply.header('memento-datetime', httpDate(time)).header('vary', 'accept')
      .header('link', linkHeader([{ uri: original, params: { rel: 'original' } }, { uri: original, params: { rel: 'timegate' } }]));
    return answer(ctx, counts, req, reply, request, time, `${ctx.publicUrl()}/fragments/${timestamp}`, `the archive as it was at ${new Date(time).toISOString()}`);
  });
}

async function answer(ctx: ServerContext, counts: CountCache, req: FastifyRequest, reply: FastifyReply, request: FragmentRequest, at: number, dataset: string, state: string): Promise<FastifyReply> {
  const format = FRAGMENT_FORMATS.find((f) => f === preferred(req.headers.accept, FRAGMENT_FORMATS));
  if (!format) return reply.code(406).type('text/plain').send(`a fragment is written as ${FRAGMENT_FORMATS.join(', ')}: accept one of them\n`);
  const archive = await ctx.index.current();
  // The default graph a query sees leaves the alternates' data out (src/query/sparql.ts): so does a fragment.
  const hidden = [...hiddenAlternates(archive, at)];
  counts.generation = archive.generation;
  const page = readFragment(archive, at, request, hidden, counts);
  // The page's own URL as the client asked for it: the subject a client looks its controls up by.
  const pageUrl = `${ctx.publicUrl()}${req.raw.url ?? ''}`;
  const title = `Triple Pattern Fragment of ${state}, page ${request.page}`;
  const body = await writeFragment({ dataset, pageUrl, title, genid: genidBase(ctx.publicUrl()) }, request, page, format);
  return reply.type(`${format}; charset=utf-8`).send(body);
}
