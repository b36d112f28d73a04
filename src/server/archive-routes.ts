/**
 * The archive's read-only JSON routes (no token): URL search, a URL's captures, the versions of its graph,
 * diff between two instants or two captures, Ver(Q) and Change(Q) of a triple pattern, and the workers'
 * host leases. Every list is a page with a limit; a bad parameter is a 400 with `{"error": "…"}` saying what
 * to give instead. The dashboard (dashboard.ts) renders the same readers, so page and API agree.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UserError } from '../util/errors.ts';
import { parseTime } from '../util/units.ts';
import { diffLines, type DiffLines } from '../versions/diff.ts';
// Ver/Change evaluate with Oxigraph: in a query process under the server's limits, never on the event loop.
import { locationOf, QueryLimitError } from '../query/engine/index.ts';
import { parseTriplePattern } from '../query/pattern.ts';
import type { HistoryReads } from '../versions/backend.ts';
import type { AnswerChange, AnswerVersions, EvolutionOptions, PatternTerm, VersionInfo } from '../versions/types.ts';
import type { ArchivedUrl, HeldLease } from '../store/types.ts';
import { currentArchive, type ServerContext } from './context.ts';
import { archivedUrlKey, mementosOf, type Memento } from './mementos.ts';

/** Default and largest page size of each list. */
export const PAGE_LIMITS = {
  urls: { default: 50, max: 1000 },
  captures: { default: 100, max: 1000 },
  versions: { default: 100, max: 1000 },
  diff: { default: 1000, max: 10_000 },
  answers: { default: 100, max: 1000 },
  leases: { default: 500, max: 5000 },
} as const;

/** A URL the archive does not know: 404, not 400 (the request was well formed). */
export class NotArchived extends UserError {}

export type Params = Record<string, unknown>;

/** A parameter given at most once; '' counts as absent unless `keepEmpty`. */
export function param(q: Params, name: string, keepEmpty = false): string | undefined {
  const v = q[name];
  if (Array.isArray(v)) throw new UserError(`give ${name}= once, not ${v.length} times`);
  if (v === undefined || v === null) return undefined;
  const s = String(v);
  return s === '' && !keepEmpty ? undefined : s;
}

function wholeNumber(q: Params, name: string, min: number, max: number, fallback: number): number {
  const v = param(q, name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new UserError(`${name}= must be a whole number from ${min} to ${max}, got '${v}'`);
  }
  return Number(v);
}

export interface PageParams {
  limit: number;
  offset: number;
}

export function pageParams(q: Params, limits: { default: number; max: number }): PageParams {
  return { limit: wholeNumber(q, 'limit', 1, limits.max, limits.default), offset: wholeNumber(q, 'offset', 0, Number.MAX_SAFE_INTEGER, 0) };
}

/** A page of an in-memory list, with what a client needs to ask for the next one. */
export function pageOf<T>(all: T[], p: PageParams): { total: number; offset: number; limit: number; next?: number; items: T[] } {
  const items = all.slice(p.offset, p.offset + p.limit);
  const next = p.offset + items.length < all.length ? p.offset + items.length : undefined;
  return { total: all.length, offset: p.offset, limit: p.limit, ...(next === undefined ? {} : { next }), items };
}

function timeParam(q: Params, name: string): number | undefined {
  const v = param(q, name);
  return v === undefined ? undefined : parseTime(v, `${name}=`);
}

/** The archived URL a request names (`url=`), normalised as the crawl log keys it. */
export function urlParam(q: Params): string {
  const url = param(q, 'url');
  if (!url) throw new UserError('give url=, the archived URL, e.g. url=http://example.org/doc (search for one with /api/urls?q=…)');
  const key = archivedUrlKey(url);
  if (!key) throw new UserError(`url= must be an http(s) URL, got '${url}'`);
  return key;
}

const iso = (ms: number) => new Date(ms).toISOString();

// ---- readers, shared with the dashboard ------------------------------------------------------------

export interface UrlPage {
  q: string;
  match: 'prefix' | 'substring';
  urls: ArchivedUrl[];
  /** Give as `after=` for the next page; absent on the last page. */
  next?: string;
}

export async function searchPage(ctx: ServerContext, q: Params): Promise<UrlPage> {
  const text = param(q, 'q', true) ?? '';
  const match = param(q, 'match') ?? 'substring';
  if (match !== 'prefix' && match !== 'substring') throw new UserError(`match= is prefix or substring, got '${match}'`);
  const limit = wholeNumber(q, 'limit', 1, PAGE_LIMITS.urls.max, PAGE_LIMITS.urls.default);
  const after = param(q, 'after');
  // One more than the page tells whether there is a next page without counting every match.
  const found = await ctx.store.searchUrls({ text, match, after, limit: limit + 1 });
  const urls = found.slice(0, limit);
  return { q: text, match, urls, ...(found.length > limit ? { next: urls.at(-1)!.url } : {}) };
}

/** A capture of a URL, with the memento timestamp that names it (unique per URL). */
export function captureJson(key: string, m: Memento) {
  const e = m.entry;
  return {
    timestamp: m.timestamp, time: iso(e.time), status: e.status, change: e.change, mediaType: e.mediaType ?? null, bytes: e.bytes, triples: e.triples,
    finalUrl: e.finalUrl ?? e.url, memento: `/memento/${m.timestamp}/${key}`,
  };
}

export async function capturesOf(ctx: ServerContext, key: string): Promise<Memento[]> {
  const list = await mementosOf(ctx.store, key);
  if (list.length === 0) throw new NotArchived(`the archive has no capture of ${key}: search for URLs with /api/urls?q=…`);
  return list;
}

export async function graphVersions(ctx: ServerContext, key: string): Promise<VersionInfo[]> {
  const archive = await currentArchive(ctx);
  const versions = archive.versions(key);
  if (versions.length === 0) throw new NotArchived(`the archive has no version of the graph of ${key} (no RDF was extracted from it): see /api/captures?url=…`);
  return versions;
}

export interface DiffAnswer extends DiffLines {
  /** The captures the instants came from, when asked by capture. */
  fromCapture?: string;
  toCapture?: string;
}

/**
 * Diff between two instants (`from=`, `to=`: ISO 8601 or `now`) of one URL's graph or of the whole archive,
 * or between two captures of a URL (`fromCapture=`, `toCapture=`: their memento timestamps).
 */
export async function diffOf(ctx: ServerContext, q: Params): Promise<DiffAnswer> {
  const url = param(q, 'url') === undefined ? undefined : urlParam(q);
  const fromCapture = param(q, 'fromCapture');
  const toCapture = param(q, 'toCapture');
  if (fromCapture !== undefined && param(q, 'from') !== undefined) throw new UserError('give from= (an instant) or fromCapture= (a capture), not both');
  if (toCapture !== undefined && param(q, 'to') !== undefined) throw new UserError('give to= (an instant) or toCapture= (a capture), not both');
  let list: Memento[] | undefined;
  const captureTime = async (ts: string, name: string): Promise<number> => {
    if (!url) throw new UserError(`${name}= names a capture of a URL: give url= too`);
    list ??= await capturesOf(ctx, url);
    const m = list.find((c) => c.timestamp === ts);
    if (!m) {
      const latest = list.slice(-5).map((c) => c.timestamp).join(', ');
      throw new UserError(`${name}=${ts} is not a capture of ${url}: its ${list.length > 5 ? `latest captures (of ${list.length})` : 'captures'} are ${latest} (all: /api/captures?url=…)`);
    }
    return m.entry.time;
  };
  const from = fromCapture !== undefined ? await captureTime(fromCapture, 'fromCapture') : timeParam(q, 'from');
  if (from === undefined) throw new UserError('give from= (the earlier instant, ISO 8601, e.g. from=2025-01-01) or fromCapture= (a memento timestamp of url=)');
  const to = toCapture !== undefined ? await captureTime(toCapture, 'toCapture') : (timeParam(q, 'to') ?? Date.now());
  const archive = await currentArchive(ctx);
  if (url && archive.versions(url).length === 0) throw new NotArchived(`the archive has no version of the graph of ${url}: search for URLs with /api/urls?q=…`);
  return { ...diffLines(archive, url, from, to), ...(fromCapture ? { fromCapture } : {}), ...(toCapture ? { toCapture } : {}) };
}

/**
 * A triple pattern (`pattern=`, as `datamonitor query --versions` takes it) as the SPARQL query whose answers
 * Ver(Q) and Change(Q) follow, and the window (`from=`, `to=`, `graph=`) passed as it is to the library.
 */
export function patternQuestion(q: Params): { pattern: string; sparql: string; options: EvolutionOptions } {
  const text = param(q, 'pattern');
  if (!text) throw new UserError("give pattern=, a triple pattern such as '<http://example.org/alice> ?p ?o' (terms as in Turtle, ?x variables, an optional 4th term for the document)");
  const pattern = parseTriplePattern(text);
  const term = (t: PatternTerm): string => {
    if ('variable' in t) return `?${t.variable}`;
    // In SPARQL a blank node in a pattern matches any node: it would not find the archive's node of that label.
    if (t.term.startsWith('_:')) throw new UserError(`pattern= cannot name the blank node ${t.term}: use a variable`);
    return t.term;
  };
  const triple = `${term(pattern.s)} ${term(pattern.p)} ${term(pattern.o)}`;
  const given = q.graph === undefined ? undefined : (Array.isArray(q.graph) ? q.graph : [q.graph]).map(String).filter(Boolean);
  let graphs = given?.length ? given : undefined;
  let where = triple;
  if (pattern.graph && 'variable' in pattern.graph) where = `GRAPH ?${pattern.graph.variable} { ${triple} }`;
  else if (pattern.graph) {
    if (graphs) throw new UserError('the pattern names its document (4th term): leave graph= out');
    graphs = [pattern.graph.term.slice(1, -1)];
  }
  // Answers are computed whole in memory on the server's thread: `?s ?p ?o` over every document would be
  // the whole archive at every change point. Such a question is for the CLI, or needs a document.
  if (!graphs && [pattern.s, pattern.p, pattern.o].every((t) => 'variable' in t)) {
    throw new UserError('a pattern of three variables asks for the whole archive: name a document (a 4th term <IRI> or graph=), or use datamonitor query --versions');
  }
  const from = timeParam(q, 'from');
  const to = timeParam(q, 'to');
  if (from !== undefined && to !== undefined && to < from) throw new UserError(`to= (${param(q, 'to')}) is before from= (${param(q, 'from')})`);
  return { pattern: text, sparql: `SELECT * WHERE { ${where} }`, options: { graphs, from, to } };
}

/** Change points one Ver/Change request may evaluate the pattern at (each is a query over the state then). */
export const MAX_CHANGE_POINTS = 10_000;

/** Refuses a window with more change points than a request may evaluate, before any is evaluated. */
function checkWork(archive: HistoryReads, options: EvolutionOptions): void {
  const points = archive.changePoints(options).length;
  if (points > MAX_CHANGE_POINTS) {
    throw new UserError(`the window has ${points} change points, more than the ${MAX_CHANGE_POINTS} one request evaluates: narrow it with from=/to= or a document (graph=), or use datamonitor query --versions/--changes`);
  }
}

/** Times of an answer's intervals and versions as ISO 8601; other fields of an interval pass as they are. */
function answerJson(v: AnswerVersions) {
  return {
    ...v,
    intervals: v.intervals.map((i) => ({ ...i, from: iso(i.from), ...(i.to === undefined ? {} : { to: iso(i.to) }) })),
    versions: v.versions.map(iso),
  };
}

const changeJson = (c: AnswerChange) => ({ ...c, time: iso(c.time) });

export interface WorkerView {
  worker: string;
  /** Leases still valid, and lapsed ones (the worker stopped renewing them: stopped, killed or stalled). */
  active: number;
  lapsed: number;
  /** The latest lease end: a live worker renews every lease/3, so it keeps moving forward. */
  latestExpiry: number;
  hosts: Array<{ host: string; expiresAt: number; lapsed: boolean }>;
}

/** The host leases grouped by worker, busiest first. */
export async function workersView(ctx: ServerContext, limit: number, now = Date.now()): Promise<{ now: number; workers: WorkerView[]; truncated: boolean }> {
  const leases: HeldLease[] = await ctx.store.heldLeases(limit + 1);
  const byWorker = new Map<string, WorkerView>();
  for (const l of leases.slice(0, limit)) {
    let w = byWorker.get(l.worker);
    if (!w) byWorker.set(l.worker, (w = { worker: l.worker, active: 0, lapsed: 0, latestExpiry: l.expiresAt, hosts: [] }));
    const lapsed = l.expiresAt <= now;
    if (lapsed) w.lapsed++;
    else w.active++;
    w.latestExpiry = Math.max(w.latestExpiry, l.expiresAt);
    w.hosts.push({ host: l.host, expiresAt: l.expiresAt, lapsed });
  }
  const workers = [...byWorker.values()].sort((a, b) => b.active - a.active || a.worker.localeCompare(b.worker));
  return { now, workers, truncated: leases.length > limit };
}

// ---- routes -----------------------------------------------------------------------------------------

function sendError(reply: FastifyReply, err: Error): FastifyReply {
  if (err instanceof NotArchived) return reply.code(404).send({ error: err.message });
  if (err instanceof QueryLimitError) {
    // Over a query limit (or the query processes busy): 503/413 as /sparql answers, not a 400.
    if (err.retryAfter !== undefined) void reply.header('retry-after', String(err.retryAfter));
    return reply.code(err.httpStatus).send({ error: err.message });
  }
  if (err instanceof UserError) return reply.code(400).send({ error: err.message });
  const status = (err as { statusCode?: number }).statusCode;
  if (status && status >= 400 && status < 500) return reply.code(status).send({ error: err.message });
  throw err; // the server's handler logs it and answers 500
}

export function registerArchiveRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const get = (path: string, handler: (q: Params, req: FastifyRequest) => Promise<unknown>) =>
    app.get(path, async (req, reply) => {
      try {
        return reply.send(await handler((req.query ?? {}) as Params, req));
      } catch (e) {
        return sendError(reply, e as Error);
      }
    });

  get('/api/urls', async (q) => {
    const page = await searchPage(ctx, q);
    return { ...page, urls: page.urls.map((u) => ({ url: u.url, captures: u.captures, first: iso(u.firstTime), last: iso(u.lastTime) })) };
  });

  get('/api/captures', async (q) => {
    const key = urlParam(q);
    const p = pageParams(q, PAGE_LIMITS.captures);
    const { items, ...page } = pageOf(await capturesOf(ctx, key), p);
    return { url: key, ...page, captures: items.map((m) => captureJson(key, m)) };
  });

  get('/api/graph/versions', async (q) => {
    const key = urlParam(q);
    const p = pageParams(q, PAGE_LIMITS.versions);
    const { items, ...page } = pageOf(await graphVersions(ctx, key), p);
    return { url: key, ...page, versions: items.map((v) => ({ ...v, time: iso(v.time) })) };
  });

  get('/api/diff', async (q) => {
    const p = pageParams(q, PAGE_LIMITS.diff);
    const d = await diffOf(ctx, q);
    // One offset and limit for both lists: a page holds up to `limit` lines of each.
    const added = pageOf(d.added, p);
    const removed = pageOf(d.removed, p);
    return {
      from: iso(d.from), to: iso(d.to), graph: d.graph, ...(d.fromCapture ? { fromCapture: d.fromCapture } : {}), ...(d.toCapture ? { toCapture: d.toCapture } : {}),
      addedTotal: added.total, removedTotal: removed.total, offset: p.offset, limit: p.limit,
      ...(added.next !== undefined || removed.next !== undefined ? { next: p.offset + p.limit } : {}),
      added: added.items, removed: removed.items,
    };
  });

  get('/api/pattern/versions', async (q) => {
    const p = pageParams(q, PAGE_LIMITS.answers);
    const question = patternQuestion(q);
    const archive = await currentArchive(ctx);
    checkWork(archive, question.options);
    const { items, ...page } = pageOf(await ctx.engine.versions(locationOf(archive), question.sparql, question.options), p);
    return { pattern: question.pattern, query: question.sparql, ...windowJson(question.options), ...page, answers: items.map(answerJson) };
  });

  get('/api/pattern/changes', async (q) => {
    const p = pageParams(q, PAGE_LIMITS.answers);
    const question = patternQuestion(q);
    const archive = await currentArchive(ctx);
    checkWork(archive, question.options);
    const { items, ...page } = pageOf(await ctx.engine.changes(locationOf(archive), question.sparql, question.options), p);
    return { pattern: question.pattern, query: question.sparql, ...windowJson(question.options), ...page, changes: items.map(changeJson) };
  });

  get('/api/workers', async (q) => {
    const limit = wholeNumber(q, 'limit', 1, PAGE_LIMITS.leases.max, PAGE_LIMITS.leases.default);
    const view = await workersView(ctx, limit);
    return {
      now: iso(view.now), truncated: view.truncated,
      workers: view.workers.map((w) => ({ ...w, latestExpiry: iso(w.latestExpiry), hosts: w.hosts.map((h) => ({ ...h, expiresAt: iso(h.expiresAt) })) })),
    };
  });
}

function windowJson(o: EvolutionOptions) {
  return { from: o.from === undefined ? null : iso(o.from), to: o.to === undefined ? null : iso(o.to), graphs: o.graphs ?? null };
}
