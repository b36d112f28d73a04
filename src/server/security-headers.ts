/**
 * Response headers every answer of this server carries. Routes that serve archived bytes set their own,
 * stricter Content-Security-Policy (memento-routes.ts); the rest (dashboard, API, SPARQL) may only be framed by
 * this origin, and no answer may be sniffed into another type (a text/plain error that reflects input is text).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export async function securityHeaders(_req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  reply.header('x-content-type-options', 'nosniff');
  if (framable.has(reply.raw)) return payload;
  if (!reply.hasHeader('x-frame-options')) reply.header('x-frame-options', 'SAMEORIGIN');
  if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', "frame-ancestors 'self'");
  return payload;
}

const framable = new WeakSet<object>();

/**
 * Lets this answer be framed: archived bytes, which a replayed page frames (its <iframe>s, from a sandboxed
 * document whose origin is no longer this server's, so `'self'` would refuse them) and which offer nothing
 * to click into doing (no script, no form, sandboxed).
 */
export function mayBeFramed(reply: FastifyReply): void {
  framable.add(reply.raw);
}

/**
 * Policy of archived bytes shown as they were (`/memento/`): nothing the page names is fetched (no live-Web
 * request from looking at a memento; data: images and inline styles still show), no script runs, no form is
 * sent, and `sandbox` gives the page an origin of its own, apart from the dashboard and write API.
 */
export const MEMENTO_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; media-src data:; form-action 'none'; base-uri 'none'; sandbox";

/**
 * Policy of pages browsed in the archive (`/replay/`): their links point into the archive (rewrite-html.ts),
 * so fetches may go to this server only; whatever was not rewritten (URLs scripts build) stays unfetched.
 */
export const REPLAY_CSP = "default-src 'self' data:; style-src 'self' 'unsafe-inline' data:; script-src 'none'; form-action 'none'; base-uri 'none'; sandbox";
