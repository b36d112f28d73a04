import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatLinkFormat } from '../util/link-format.ts';
import { publicPath, targetAfter, type ServerContext } from './context.ts';
import { MEMENTO_CSP, REPLAY_CSP, mayBeFramed } from './security-headers.ts';
import { escapeXml as esc } from '../util/escape.ts';
import { preferred } from './negotiate.ts';
import { rewriteCss, rewriteHtml } from './rewrite-html.ts';
import { decodeBody } from '../fetch/decode.ts';
import { decodeDocument } from '../extract/html/charset.ts';
import { decodeText } from '../extract/charset.ts';
import { parseContentType } from '../util/content-type.ts';
import { redirectTarget } from '../util/headers.ts';
import {
  archivedUrlKey, closestMemento, httpDate, linkHeader, mementoLinks, mementosOf, mementoUris, originalResponse,
  parseAcceptDatetime, parseTimestamp, timegateLinks, timemapJson, timemapLinks, versionNQuads, type Memento,
} from './mementos.ts';

const NQUADS = 'application/n-quads';

export interface Lookup {
  original: string;
  list: Memento[];
}

/**
 * The mementos of the URL in the request target, or a 400/404 already sent. A target without a scheme
 * (`/timegate/example.org/doc`, as CDX queries take it and pywb answers it) is tried as http, then https.
 */
async function lookup(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply, target: string): Promise<Lookup | undefined> {
  const candidates = /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? [target] : [`http://${target}`, `https://${target}`];
  let first: string | undefined;
  for (const candidate of candidates) {
    const original = archivedUrlKey(candidate);
    if (!original) continue;
    first ??= original;
    const list = await mementosOf(ctx.store, original);
    if (list.length > 0) return { original, list };
  }
  if (!first) {
    await reply.code(400).type('text/plain').send(`'${target}' is not an http(s) URL: use ${req.routeOptions.url?.replace('*', '<url>')}\n`);
    return undefined;
  }
  await reply.code(404).type('text/plain').send(`no memento of ${candidates.length > 1 ? target.replace(/^\/+/, '') : first} in this archive\n`);
  return undefined;
}

export function registerMementoRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/timegate/*', async (req, reply) => {
    const found = await lookup(ctx, req, reply, targetAfter(req, /^\/timegate\//));
    if (!found) return reply;
    const u = mementoUris(ctx.publicUrl(), found.original);
    const asked = req.headers['accept-datetime'];
    let time = Date.now();
    if (asked !== undefined) {
      const parsed = parseAcceptDatetime(asked);
      if (typeof parsed === 'string') {
        return reply.code(400).header('vary', 'accept-datetime').header('link', linkHeader(timegateLinks(u))).type('text/plain').send(parsed + '\n');
      }
      time = parsed;
    }
    const m = closestMemento(found.list, time);
    return reply.code(302).header('location', u.memento(m)).header('vary', 'accept-datetime').header('link', linkHeader(timegateLinks(u))).send();
  });

  app.get('/timemap/link/*', async (req, reply) => {
    const found = await lookup(ctx, req, reply, targetAfter(req, /^\/timemap\/link\//));
    if (!found) return reply;
    return reply.type('application/link-format').send(formatLinkFormat(timemapLinks(mementoUris(ctx.publicUrl(), found.original), found.list)));
  });

  app.get('/timemap/json/*', async (req, reply) => {
    const found = await lookup(ctx, req, reply, targetAfter(req, /^\/timemap\/json\//));
    if (!found) return reply;
    return reply.type('application/json').send(timemapJson(mementoUris(ctx.publicUrl(), found.original), found.list));
  });

  app.get('/memento/:timestamp/*', (req, reply) => memento(ctx, req, reply, 'memento'));
  // The same mementos for browsing: HTML with its links pointing into the archive (rewrite-html.ts).
  app.get('/replay/:timestamp/*', (req, reply) => memento(ctx, req, reply, 'replay'));
}

/** A memento as archived (`memento`: the original bytes, or its RDF), or as a page to browse in the archive (`replay`). */
async function memento(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply, view: 'memento' | 'replay'): Promise<FastifyReply> {
  const { timestamp } = req.params as { timestamp: string };
  const time = parseTimestamp(timestamp);
  if (time === undefined) return reply.code(400).type('text/plain').send(`'${timestamp}' is not a timestamp: use 14 digits, yyyyMMddHHmmss (UTC)\n`);
  let target = targetAfter(req, view === 'memento' ? /^\/memento\/\d+\// : /^\/replay\/\d+\//);
  // `?format=nquads` is this server's, unless it belongs to an archived URL.
  let wantRdf = false;
  const fmt = view === 'memento' ? /[?&]format=nquads$/.exec(target) : null;
  if (fmt && (await mementosOf(ctx.store, archivedUrlKey(target) ?? target)).length === 0) {
    target = target.slice(0, fmt.index);
    wantRdf = true;
  }
  const found = await lookup(ctx, req, reply, target);
  if (!found) return reply;
  const u = mementoUris(ctx.publicUrl(), found.original);
  const replayPath = (ts: string, url: string) => `${publicPath(ctx)}/replay/${ts}/${url}`;
  const index = found.list.findIndex((m) => m.timestamp === timestamp);
  if (index < 0) {
    // Not an exact memento: send the client to the closest one, as Wayback machines do.
    const m = closestMemento(found.list, time);
    const closest = view === 'memento' ? u.memento(m) : replayPath(m.timestamp, found.original);
    return reply.code(302).header('location', wantRdf ? `${closest}${closest.includes('?') ? '&' : '?'}format=nquads` : closest).send();
  }
  const m = found.list[index]!;
  wantRdf ||= view === 'memento' && preferred(req.headers.accept, [m.entry.mediaType || 'application/octet-stream', NQUADS]) === NQUADS;
  reply.header('memento-datetime', httpDate(m.entry.time)).header('link', linkHeader(mementoLinks(u, found.list, index))).header('vary', 'accept');
  if (wantRdf) {
    const nquads = versionNQuads(ctx.dataDir, found.list, index);
    if (nquads === undefined) return reply.code(404).type('text/plain').send(`no RDF was found in ${found.original} at ${httpDate(m.entry.time)}\n`);
    return reply.type(NQUADS).send(nquads);
  }
  const res = await originalResponse(ctx.dataDir, ctx.store, found.list, index);
  let contentType: string | undefined;
  let contentEncoding: string | undefined;
  // Every header of the original is returned, renamed (X-Archive-Orig-Date, -Set-Cookie, -Content-Length, …)
  // as Wayback machines do: as themselves they would describe this answer wrongly (its date, length and
  // transfer) or act on the client (a cookie set for this server, a redirect away from the archive).
  // Content-Type is replayed as it was, and Content-Encoding with the bytes it describes.
  const orig = new Map<string, string[]>();
  for (const [k, v] of res.headers) {
    const name = k.toLowerCase();
    if (name === 'content-type') contentType ??= v;
    else if (name === 'content-encoding') contentEncoding ??= v;
    // A name or value that is not a valid field would make the whole answer fail: such a header is left out.
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name) || /[^\t\x20-\x7e\x80-\xff]/.test(v)) continue;
    orig.set(name, [...(orig.get(name) ?? []), v]);
  }
  for (const [name, values] of orig) reply.header(`x-archive-orig-${name}`, values.length === 1 ? values[0] : values);
  // Archived pages must not run scripts with this server's origin (the dashboard and the write API live here),
  // nor fetch from the live Web when looked at.
  reply.header('content-security-policy', view === 'memento' ? MEMENTO_CSP : REPLAY_CSP).header('x-dns-prefetch-control', 'off');
  mayBeFramed(reply);
  const status = res.status >= 200 && res.status < 600 ? res.status : 200;
  // Where an archived redirect leads (an http(s) URL): replay follows it, the memento view points it into the archive.
  const to = redirectTarget(status, res.headers, found.original)?.url;
  const redirect = to && (to.protocol === 'http:' || to.protocol === 'https:') ? to.href : undefined;
  if (view === 'replay') {
    // Browsing follows a redirect within the archive (the memento view keeps it as archived): one the
    // crawler followed (the capture is of its final URL) or one it archived as a 3xx.
    const final = m.entry.finalUrl && archivedUrlKey(m.entry.finalUrl) !== found.original ? m.entry.finalUrl : undefined;
    const next = final ?? redirect;
    if (next) return reply.code(302).header('location', replayPath(timestamp, next)).send();
    const { mediaType: type, charset } = parseContentType(contentType);
    if (type === 'text/html' || type === 'application/xhtml+xml' || type === 'text/css') {
      const body = await decodeBody(res.body, contentEncoding, MAX_REPLAY_BYTES);
      if (!body.error) {
        const toArchive = (url: string) => replayPath(timestamp, url);
        const pageUrl = m.entry.finalUrl ?? found.original;
        const text = type === 'text/css'
          ? rewriteCss(decodeText(body.body, charset), pageUrl, toArchive)
          : rewriteHtml(decodeDocument(body.body, { headerCharset: charset }).text, pageUrl, toArchive, replayBanner(ctx, found, index, replayPath));
        return reply.code(status).type(`${type}; charset=utf-8`).send(text);
      }
    }
  }
  if (contentType !== undefined) reply.header('content-type', contentType);
  if (contentEncoding !== undefined) reply.header('content-encoding', contentEncoding);
  // A 3xx keeps its status, and its Location points into the archive: the target at this memento's time,
  // which the memento route answers with the target's closest memento (pywb and Wayback do the same). The
  // original Location, which would send a client off the archive, is X-Archive-Orig-Location.
  if (redirect) reply.header('location', `${ctx.publicUrl()}/memento/${timestamp}/${redirect}`);
  return reply.code(status).send(res.body);
}

/**
 * The bar on top of a page browsed in the archive: that it is archived and when, the captures before and
 * after it, and all captures (the document's page and its TimeMap). Styles are inline and reset (`all:
 * initial`) so that the page's style sheets neither hide it nor are changed by it; no script.
 */
export function replayBanner(ctx: ServerContext, found: Lookup, index: number, replayPath: (ts: string, url: string) => string): string {
  const { list, original } = found;
  const m = list[index]!;
  const at = (i: number) => new Date(list[i]!.entry.time).toUTCString();
  const a = (href: string, rel: string, text: string) =>
    `<a href="${esc(href)}" rel="${rel}" style="all:initial;font:inherit;color:#0645ad;text-decoration:underline;cursor:pointer">${esc(text)}</a>`;
  const parts = [
    index > 0 ? a(replayPath(list[index - 1]!.timestamp, original), 'prev', `\u2190 previous capture (${at(index - 1)})`) : '<span>no earlier capture</span>',
    index < list.length - 1 ? a(replayPath(list[index + 1]!.timestamp, original), 'next', `next capture (${at(index + 1)}) \u2192`) : '<span>no later capture</span>',
    a(`${publicPath(ctx)}/doc?url=${encodeURIComponent(original)}`, 'nofollow', `all ${list.length} capture${list.length === 1 ? '' : 's'}`),
    a(`${publicPath(ctx)}/timemap/link/${original}`, 'timemap', 'TimeMap'),
  ];
  return `<div id="datamonitor-banner" role="banner" style="all:initial;display:block;box-sizing:border-box;width:100%;margin:0;padding:6px 10px;`
    + `background:#fff4c2;color:#222;border-bottom:2px solid #b59b00;font:13px/1.5 sans-serif;position:relative;z-index:2147483647">`
    + `<strong>Archived page</strong> of <span>${esc(original)}</span> as captured <time datetime="${new Date(m.entry.time).toISOString()}">${esc(at(index))}</time> by datamonitor \u00b7 `
    + parts.join(' \u00b7 ')
    + `</div>`;
}

const MAX_REPLAY_BYTES = 64 * 1024 * 1024;
