/**
 * The dashboard: server-rendered HTML with inline SVG charts (src/plot/svg.ts), no front-end build.
 * `/` shows the crawl's progress and log, the change-frequency histogram, estimated against actual cycle
 * times, the re-crawl lab's charts and the workers' host leases, its summary refreshed in place on request;
 * `/search?q=` finds archived URLs; `/doc?url=` one document's version timeline and captures; `/diff?url=…`
 * the triples added and removed between two of its captures. The data come from the same readers as the
 * JSON routes (archive-routes.ts). The only script is /dashboard.js (auto-refresh), served from this origin.
 */
import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { barChart, lineChart, toSvg } from '../plot/svg.ts';
import { escapeXml as esc } from '../util/escape.ts';
import { recrawlLabSvg, type RecrawlLabResult } from '../lab/recrawl/index.ts';
import type { ChangeFrequency, DocumentState, ProgressPoint } from '../store/types.ts';
import { currentArchive, type ServerContext } from './context.ts';
import { IndexCatchingUpError } from '../versions/version-index.ts';
import { archivedUrlKey, mementosOf, type Memento } from './mementos.ts';
import { UserError } from '../util/errors.ts';
import { OUTCOMES } from '../vocabulary/outcomes.ts';
import { NotArchived, PAGE_LIMITS, diffOf, pageOf, pageParams, param, searchPage, workersView, type Params } from './archive-routes.ts';
import { VOID_PATH } from './self-description.ts';
import { LDES_PATH } from './ldes.ts';

const STYLE = `body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1400px}h1{margin:0 0 .2em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}th{background:#f3f3f3}
.charts{display:flex;flex-wrap:wrap;gap:12px}.charts svg{border:1px solid #eee}.muted{color:#777}.kv td:first-child{font-weight:bold}
.error{color:#b00}.changed{color:#d62728}.new{color:#1f77b4}.unchanged{color:#777}nav a{margin-right:1em}code{font-size:12px}
nav{display:flex;align-items:center;gap:.5em;flex-wrap:wrap}nav form{margin-left:auto}nav input[type=search]{width:24em}
.diff{font-family:monospace;font-size:12px;white-space:pre-wrap;word-break:break-all;margin:0;padding:4px;border:1px solid #eee}
.diff .added{background:#e6ffec;color:#116329;display:block}.diff .removed{background:#ffebe9;color:#82071e;display:block}
.lapsed{color:#b00}.pager a{margin-right:1em}#refresh-state{margin-left:1em}`;

/** The archive's descriptions of itself (self-description.ts) and its change feed (ldes.ts): a browser's link asks for the service description by format=. */
const DESCRIPTIONS = `<a href="/sparql?format=turtle" title="SPARQL 1.1 Service Description">service description</a><a href="${VOID_PATH}" title="VoID description of the archive">VoID</a><a href="${LDES_PATH}" title="Linked Data Event Stream of every change of every document (TriG)">LDES</a>`;

function page(title: string, body: string, opts: { q?: string; script?: boolean } = {}): string {
  const search = `<form action="/search" method="get" id="search-form" role="search"><input type="search" name="q" id="search-q" value="${esc(opts.q ?? '')}" placeholder="archived URL or part of it" aria-label="search archived URLs"> <button type="submit">Search</button></form>`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>`
    + `<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><style>${STYLE}</style></head>`
    + `<body><nav><a href="/">dashboard</a><a href="/sparql">SPARQL</a><a href="/fragments" title="Triple Pattern Fragments (Linked Data Fragments), Memento with Accept-Datetime">fragments</a>${DESCRIPTIONS}${search}</nav>${body}${opts.script ? '<script src="/dashboard.js"></script>' : ''}</body></html>\n`;
}

const iso = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');

/** A time axis unit that keeps the numbers readable for spans from seconds to years. */
function timeUnit(spanMs: number): { ms: number; name: string } {
  if (spanMs < 2 * 60_000) return { ms: 1000, name: 'seconds' };
  if (spanMs < 2 * 3_600_000) return { ms: 60_000, name: 'minutes' };
  if (spanMs < 3 * 86_400_000) return { ms: 3_600_000, name: 'hours' };
  return { ms: 86_400_000, name: 'days' };
}

function countsTable(title: string, counts: Map<string, number>): string {
  const rows = [...counts].sort((a, b) => b[1] - a[1]).map(([k, v]) => `<tr><td>${esc(k)}</td><td>${v}</td></tr>`).join('');
  return `<table><tr><th>${esc(title)}</th><th>entries</th></tr>${rows}</table>`;
}

const docLink = (url: string) => `<a href="/doc?url=${encodeURIComponent(url)}">${esc(url)}</a>`;

/** Points of the progress chart: one per log entry on a small log, one per time bucket beyond (the store decides). */
const PROGRESS_POINTS = 2000;

function progressChart(points: ProgressPoint[], entries: number): string {
  const t0 = points[0]!.time;
  const unit = timeUnit(points[points.length - 1]!.time - t0);
  const fetched: Array<[number, number]> = [];
  const failed: Array<[number, number]> = [];
  let ok = 0;
  let bad = 0;
  for (const p of points) {
    ok += p.fetched;
    bad += p.errors;
    const x = (p.time - t0) / unit.ms;
    fetched.push([x, ok]);
    failed.push([x, bad]);
  }
  return toSvg(lineChart({ title: 'Crawl progress', xLabel: `${unit.name} since ${iso(t0)}`, yLabel: 'fetches', series: [{ name: 'fetched', points: fetched, markers: entries <= 60 }, { name: 'errors', points: failed, markers: entries <= 60 }], width: 560, height: 300 }));
}

/** How many changes each document showed: the change-frequency histogram. */
function changeHistogram(frequencies: ChangeFrequency[]): string {
  const bins = [
    { label: '0', lo: 0, hi: 0 }, { label: '1', lo: 1, hi: 1 }, { label: '2', lo: 2, hi: 2 }, { label: '3–5', lo: 3, hi: 5 },
    { label: '6–10', lo: 6, hi: 10 }, { label: '11–50', lo: 11, hi: 50 }, { label: '>50', lo: 51, hi: Infinity },
  ];
  const values = bins.map((b) => frequencies.filter((f) => f.changes >= b.lo && f.changes <= b.hi).reduce((n, f) => n + f.documents, 0));
  return toSvg(barChart({ title: 'Change frequency: changes seen per document', categories: bins.map((b) => b.label), series: [{ name: 'documents', values }], yLabel: 'documents', width: 560, height: 300 }));
}

function countsChart(title: string, counts: Map<string, number>): string {
  const entries = [...counts].sort((a, b) => a[0].localeCompare(b[0]));
  return toSvg(barChart({ title, categories: entries.map(([k]) => k), series: [{ name: 'entries', values: entries.map(([, v]) => v) }], yLabel: 'log entries', width: 420, height: 300 }));
}

async function cyclesSection(ctx: ServerContext): Promise<string> {
  const cycles = (await ctx.store.cycles()).slice(-30);
  if (cycles.length === 0) return '<p class="muted">No re-crawl cycle has run yet.</p>';
  const secs = (ms: number | undefined) => (ms === undefined ? NaN : ms / 1000);
  const chart = toSvg(barChart({
    title: 'Re-crawl cycles: estimated against actual time', categories: cycles.map((c) => `#${c.id}`), yLabel: 'seconds', width: Math.max(560, 60 + 150 + cycles.length * 40), height: 300,
    series: [{ name: 'estimated', values: cycles.map((c) => secs(c.estimateMs)) }, { name: 'actual', values: cycles.map((c) => secs(c.actualMs)) }],
  }));
  const rows = cycles.slice().reverse().map((c) => `<tr><td>#${c.id}</td><td>${iso(c.startedAt)}</td><td>${c.status}</td><td>${c.urls}</td><td>${c.estimateMs === undefined ? '' : (c.estimateMs / 1000).toFixed(1)}</td><td>${c.actualMs === undefined ? '' : (c.actualMs / 1000).toFixed(1)}</td><td>${esc(c.note ?? '')}</td></tr>`).join('');
  return `<div class="charts" id="cycles-chart">${chart}</div><table><tr><th>cycle</th><th>started</th><th>status</th><th>URLs</th><th>estimate s</th><th>actual s</th><th>note</th></tr>${rows}</table>`;
}

/** The lab's JSON (from `datamonitor lab recrawl --json`) as recall/precision charts; read at each request so a re-run shows. */
function labSection(file: string | undefined): string {
  if (!file) return '<p class="muted">No re-crawl lab results: start the server with <code>--lab FILE.json</code> (from <code>datamonitor lab recrawl --json</code>).</p>';
  try {
    const result = JSON.parse(fs.readFileSync(file, 'utf8')) as RecrawlLabResult;
    if (!Array.isArray(result?.reports) || result.reports.some((r) => typeof r?.strategy !== 'string' || typeof r?.overall?.recallMicro !== 'number')) {
      throw new Error('not the output of datamonitor lab recrawl --json (no reports with recall/precision)');
    }
    return `<p>${result.documents} documents, ${result.changes} changes (${esc(file)}).</p><div class="charts" id="lab-chart">${recrawlLabSvg(result)}</div>`;
  } catch (e) {
    return `<p class="error">Cannot show the lab results in ${esc(file)}: ${esc((e as Error).message)}</p>`;
  }
}

/** How long from now until `t`, or how long ago, in words a glance reads. */
function fromNow(t: number, now: number): string {
  const s = Math.abs(t - now) / 1000;
  const span = s < 120 ? `${Math.round(s)} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
  return t > now ? `in ${span}` : `${span} ago`;
}

/** Hosts shown per worker before "+N more" (the JSON route lists them all). */
const HOSTS_SHOWN = 20;

/** Which worker holds which host lease (src/store/worker-types.ts), from the shared store. */
async function workersPanel(ctx: ServerContext): Promise<string> {
  const { now, workers, truncated } = await workersView(ctx, PAGE_LIMITS.leases.default);
  if (workers.length === 0) return '<div id="workers"><p class="muted">No worker holds a host lease (cooperating workers: <code>datamonitor worker --db …</code>; see docs/workers.md).</p></div>';
  const rows = workers.map((w) => {
    const hosts = w.hosts.slice(0, HOSTS_SHOWN).map((h) => `<span${h.lapsed ? ' class="lapsed" title="lapsed: not renewed"' : ''}>${esc(h.host)}</span>`).join(', ');
    const more = w.hosts.length > HOSTS_SHOWN ? ` +${w.hosts.length - HOSTS_SHOWN} more` : '';
    const state = w.active ? 'renewing' : '<span class="lapsed">lapsed</span>';
    return `<tr><td><code>${esc(w.worker)}</code></td><td>${state}</td><td>${w.active}</td><td>${w.lapsed}</td><td>${iso(w.latestExpiry)} (${fromNow(w.latestExpiry, now)})</td><td>${hosts}${more}</td></tr>`;
  }).join('');
  return `<div id="workers"><table id="workers-table"><tr><th>worker</th><th>state</th><th>hosts held</th><th>lapsed leases</th><th>lease ends</th><th>hosts</th></tr>${rows}</table>`
    + `<p class="muted">A worker renews its leases every third of a lease period, so a live worker's lease end keeps moving ahead; a lapsed lease (red) is one its worker stopped renewing (stopped, killed or stalled), free for another worker to take.${truncated ? ` Only the first ${PAGE_LIMITS.leases.default} leases are shown: <a href="/api/workers?limit=${PAGE_LIMITS.leases.max}">/api/workers</a> lists more.` : ''}</p></div>`;
}

/** The part of the overview that auto-refresh replaces: the summary counts and the worker panel. */
async function liveSection(ctx: ServerContext, counts?: { entries: number }): Promise<string> {
  const entries = counts?.entries ?? (await ctx.store.logCounts()).entries;
  const states: DocumentState[] = ['queued', 'fetched', 'failed', 'skipped'];
  const docCounts = await Promise.all(states.map((s) => ctx.store.countDocuments(s)));
  // The page comes at once while a new archive is being indexed (no wait of its own): the graphs' row says how far that is.
  const running = ctx.index.catchUpStatus();
  let graphs: string;
  if (running) graphs = esc(new IndexCatchingUpError(running).message);
  else {
    const stats = (await currentArchive(ctx)).stats();
    graphs = `${stats.graphs} documents, ${stats.versions} versions, ${stats.rows} triple rows`;
  }
  return `<table class="kv" id="summary"><tr><td>documents</td><td>${docCounts.reduce((a, b) => a + b, 0)} (${states.map((s, i) => `${docCounts[i]} ${s}`).join(', ')})</td></tr>`
    + `<tr><td>log entries</td><td>${entries}</td></tr><tr><td>RDF graphs</td><td>${graphs}</td></tr></table>`
    + `<h2>Workers</h2>${await workersPanel(ctx)}`;
}

async function overview(ctx: ServerContext): Promise<string> {
  // Aggregates and the latest entries come from the store as GROUP BY and LIMIT queries, not the whole log.
  const counts = await ctx.store.logCounts();
  let body = `<h1>datamonitor</h1><p class="muted">Archive in <code>${esc(ctx.dataDir)}</code>; versioned store ${esc(ctx.index.source)}.</p>`;
  body += `<p><label><input type="checkbox" id="auto-refresh"> refresh the summary and workers every 10 s</label><span id="refresh-state" class="muted"></span></p>`;
  body += `<section id="live">${await liveSection(ctx, counts)}</section>`;
  body += '<h2>Crawl progress</h2>';
  if (counts.entries === 0) body += '<p class="muted">Nothing crawled yet: <code>datamonitor crawl --data DIR SEED…</code></p>';
  else {
    // Maps in order of first appearance in the log, as the tables' tie order has always been.
    const byStatus = new Map(counts.byStatus.map((g) => [g.status ? String(g.status) : 'no response', g.entries]));
    const byOutcome = new Map<string, number>(OUTCOMES.filter((o) => counts.byOutcome[o] > 0).map((o) => [o, counts.byOutcome[o]]));
    body += `<div class="charts" id="progress-charts">${progressChart(await ctx.store.logProgress(PROGRESS_POINTS), counts.entries)}${countsChart('Log entries by HTTP status', byStatus)}${countsChart('Log entries by outcome', byOutcome)}</div>`;
    // Why each URL ended as it did (src/vocabulary/reasons.ts): what `datamonitor log --reason R` lists.
    const byReason = new Map<string, number>(counts.byReason.map((g) => [g.reason || '(before reasons)', g.entries]));
    body += `<div class="charts">${countsTable('status', byStatus)}${countsTable('outcome', byOutcome)}<div id="reasons">${countsTable('reason', byReason)}</div></div>`;
    body += `<h2>Change frequency</h2><div class="charts" id="change-histogram">${changeHistogram(await ctx.store.changeFrequencies())}</div>`;
  }
  body += `<h2>Re-crawl cycles</h2>${await cyclesSection(ctx)}`;
  body += `<h2>Re-crawl lab</h2>${labSection(ctx.labFile)}`;
  if (counts.entries) {
    const latest = await ctx.store.latestLog(50);
    body += `<h2>Latest log entries</h2><table id="log"><tr><th>time</th><th>URL</th><th>status</th><th>change</th><th>type</th><th>bytes</th><th>triples</th><th>ms</th><th>reason</th><th>error</th></tr>`
      + latest.map((e) => `<tr><td>${iso(e.time)}</td><td>${docLink(e.url)}</td><td>${e.status || ''}</td><td class="${e.change}">${e.change}</td><td>${esc(e.mediaType ?? '')}</td><td>${e.bytes}</td><td>${e.triples}</td><td>${Math.round(e.durationMs)}</td><td>${esc(e.reason ?? '')}</td><td class="error">${esc(e.error ?? '')}</td></tr>`).join('')
      + '</table>';
  }
  return page('datamonitor dashboard', body, { script: true });
}

/** One document's versions: a timeline of its captures (triples, coloured by change) and their mementos. */
async function documentPage(ctx: ServerContext, url: string, q: Params = {}): Promise<{ status: number; html: string }> {
  const shown = pageParams(q, PAGE_LIMITS.captures);
  const key = archivedUrlKey(url);
  const list = key ? await mementosOf(ctx.store, key) : [];
  if (!key || list.length === 0) return { status: 404, html: page('not archived', `<h1>Not in the archive</h1><p>No capture of <code>${esc(url)}</code>.</p>`) };
  const t0 = list[0]!.entry.time;
  const unit = timeUnit(list[list.length - 1]!.entry.time - t0);
  const kinds = ['new', 'changed', 'unchanged', 'error'] as const;
  // Triples of the graph as it stood after each capture (a capture that did not parse keeps the last count).
  let triples = 0;
  const points = list.map((m) => {
    if (m.entry.rdfOffset !== undefined || m.entry.change === 'new' || m.entry.change === 'changed') triples = m.entry.triples;
    if (m.entry.status === 404 || m.entry.status === 410) triples = 0;
    return { kind: m.entry.change, triples, p: [(m.entry.time - t0) / unit.ms, triples] as [number, number] };
  });
  // A step line: the graph keeps its size until the next capture changes it.
  const steps = points.flatMap((pt, i) => (i === 0 ? [pt.p] : [[pt.p[0], points[i - 1]!.p[1]] as [number, number], pt.p]));
  const chart = toSvg(lineChart({
    title: `Version timeline (${list.length} captures)`, xLabel: `${unit.name} since ${iso(t0)}`, yLabel: 'triples', width: 760, height: 320,
    series: [{ name: 'triples', points: steps, markers: false }, ...kinds.map((k) => ({ name: k, points: points.filter((p) => p.kind === k).map((p) => p.p) }))],
  }));
  const [fromDefault, toDefault] = diffDefaults(list);
  const radio = (name: string, m: Memento, checked: boolean) => `<input type="radio" name="${name}" value="${esc(m.timestamp)}" aria-label="${name} ${esc(m.timestamp)}"${checked ? ' checked' : ''}>`;
  // Newest first, a page of them: the chart above shows them all.
  const captures = pageOf(list.map((m, i) => ({ m, graphTriples: points[i]!.triples })).reverse(), shown);
  const rows = captures.items.map(({ m, graphTriples }) => {
    const e = m.entry;
    const memento = `/memento/${m.timestamp}/${key}`;
    return `<tr data-timestamp="${esc(m.timestamp)}"><td>${radio('fromCapture', m, m === fromDefault)}</td><td>${radio('toCapture', m, m === toDefault)}</td>`
      + `<td>${iso(e.time)}</td><td>${e.status || ''}</td><td class="${e.change}">${e.change}</td><td>${esc(e.mediaType ?? '')}</td><td>${e.bytes}</td><td>${graphTriples}</td><td><code>${esc(e.checksum ?? '')}</code></td>`
      + `<td><a href="${esc(memento)}">bytes</a> · <a href="${esc(memento)}?format=nquads">N-Quads</a>`
      + `${/html/i.test(e.mediaType ?? '') ? ` · <a href="${esc(`/replay/${m.timestamp}/${key}`)}">browse</a>` : ''}</td></tr>`;
  }).join('');
  const enc = encodeURIComponent(key);
  const pageLink = (offset: number, text: string, id: string) => `<a id="${id}" href="/doc?url=${enc}&amp;limit=${shown.limit}&amp;offset=${offset}">${text}</a>`;
  const pager = captures.total > shown.limit || shown.offset > 0
    ? `<p class="pager">captures ${shown.offset + 1}–${shown.offset + captures.items.length} of ${captures.total}, newest first · `
      + `${shown.offset > 0 ? pageLink(Math.max(0, shown.offset - shown.limit), 'newer', 'newer-page') : ''}${captures.next !== undefined ? pageLink(captures.next, 'older', 'older-page') : ''}</p>`
    : '';
  const diffButton = list.length > 1
    ? '<p><button type="submit" id="diff-button">Diff the two captures chosen</button> <span class="muted">(the triples added and removed between the graph as it stood after each)</span></p>'
    : '<p class="muted">One capture: nothing to diff yet.</p>';
  const body = `<h1>${esc(key)}</h1><p><a href="/timemap/link/${esc(key)}">TimeMap</a> · <a href="/timemap/json/${esc(key)}">TimeMap (JSON)</a> · <a href="/timegate/${esc(key)}">TimeGate</a> · <a href="/cdx?url=${enc}">CDXJ</a>`
    + ` · <a href="/api/captures?url=${enc}">captures (JSON)</a> · <a href="/api/graph/versions?url=${enc}">graph versions (JSON)</a></p>`
    + `<div class="charts" id="timeline">${chart}</div><h2>Captures</h2><form action="/diff" method="get" id="diff-form"><input type="hidden" name="url" value="${esc(key)}">${diffButton}`
    + `<table id="versions"><tr><th>from</th><th>to</th><th>time</th><th>status</th><th>change</th><th>type</th><th>bytes</th><th>triples in the graph</th><th>payload digest</th><th>memento</th></tr>${rows}</table></form>${pager}`;
  return { status: 200, html: page(key, body) };
}

/** The diff a user most likely wants first: the latest change of the graph against the capture before it. */
function diffDefaults(list: Memento[]): [Memento | undefined, Memento | undefined] {
  if (list.length < 2) return [undefined, undefined];
  let to = list.length - 1;
  for (let i = list.length - 1; i > 0; i--) {
    if (list[i]!.entry.change === 'changed' || list[i]!.entry.rdfOffset !== undefined) { to = i; break; }
  }
  return [list[to - 1], list[to]];
}

/** `/search?q=`: archived URLs by substring or prefix, a page at a time. */
async function searchHtml(ctx: ServerContext, q: Params): Promise<string> {
  const found = await searchPage(ctx, q);
  const limit = param(q, 'limit');
  const link = (after: string) => `/search?${new URLSearchParams({ q: found.q, match: found.match, ...(limit ? { limit } : {}), after })}`;
  const option = (m: string, label: string) => `<label><input type="radio" name="match" value="${m}"${found.match === m ? ' checked' : ''}> ${label}</label>`;
  let body = `<h1>Archived URLs</h1><form action="/search" method="get" id="search-page-form"><input type="search" name="q" value="${esc(found.q)}" aria-label="URL or part of it"> ${option('substring', 'containing')} ${option('prefix', 'starting with')} <button type="submit">Search</button></form>`;
  if (found.urls.length === 0) {
    body += `<p id="no-results">No archived URL ${found.match === 'prefix' ? 'starts with' : 'contains'} <code>${esc(found.q)}</code>${param(q, 'after') ? ' after this point' : ''}.</p>`;
  } else {
    body += `<table id="results"><tr><th>URL</th><th>captures</th><th>first</th><th>last</th></tr>`
      + found.urls.map((u) => `<tr><td>${docLink(u.url)}</td><td>${u.captures}</td><td>${iso(u.firstTime)}</td><td>${iso(u.lastTime)}</td></tr>`).join('') + '</table>';
  }
  body += `<p class="pager">${param(q, 'after') ? `<a href="${esc(link(''))}">first page</a>` : ''}${found.next ? `<a href="${esc(link(found.next))}" id="next-page">next page</a>` : ''}</p>`;
  return page(`search: ${found.q}`, body, { q: found.q });
}

/** `/diff?url=&fromCapture=&toCapture=` (or from=/to= instants): the lines `datamonitor diff` prints, coloured. */
async function diffHtml(ctx: ServerContext, q: Params): Promise<string> {
  const p = pageParams(q, PAGE_LIMITS.diff);
  const d = await diffOf(ctx, q);
  const removed = pageOf(d.removed, p);
  const added = pageOf(d.added, p);
  const what = d.graph ? `<a href="/doc?url=${encodeURIComponent(d.graph)}">${esc(d.graph)}</a>` : 'the whole archive';
  const at = (t: number, capture?: string) => `${iso(t)}${capture ? ` (capture ${esc(capture)})` : ''}`;
  const lines = [...removed.items.map((l) => `<span class="removed">- ${esc(l)}</span>`), ...added.items.map((l) => `<span class="added">+ ${esc(l)}</span>`)].join('');
  const more = added.next !== undefined || removed.next !== undefined;
  const nextLink = more ? `<a id="next-page" href="${esc(`/diff?${new URLSearchParams({ ...stringParams(q), offset: String(p.offset + p.limit), limit: String(p.limit) })}`)}">next ${p.limit} lines of each</a>` : '';
  const body = `<h1>Diff of ${what}</h1><p id="diff-summary"><span class="added">${added.total} added</span>, <span class="removed">${removed.total} removed</span> between ${at(d.from, d.fromCapture)} and ${at(d.to, d.toCapture)}.</p>`
    + `<p class="muted">Blank nodes carry the archive's stable labels (a hash of their graph and neighbourhood), as <code>datamonitor diff</code> prints them: a label in both captures is the same node.</p>`
    + (lines ? `<pre class="diff" id="diff">${lines}</pre>` : '<p id="diff">No triple was added or removed.</p>')
    + `<p class="pager">${p.offset ? `lines ${p.offset + 1}… of each list · ` : ''}${nextLink} <a href="/api/diff?${esc(new URLSearchParams(stringParams(q)).toString())}">JSON</a></p>`;
  return page(`diff ${d.graph ?? 'archive'}`, body);
}

function stringParams(q: Params): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(q)) if (typeof v === 'string' && k !== 'offset') out[k] = v;
  return out;
}

/** An HTML page's answer to a failed read: 404 for what the archive lacks, 400 for a bad parameter. */
function errorPage(e: unknown): { status: number; html: string } {
  if (e instanceof NotArchived) return { status: 404, html: page('not archived', `<h1>Not in the archive</h1><p class="error">${esc(e.message)}</p>`) };
  if (e instanceof UserError) return { status: 400, html: page('bad request', `<h1>Cannot show that</h1><p class="error">${esc(e.message)}</p>`) };
  throw e;
}

export function registerDashboardRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const html = (render: (q: Params) => Promise<string>) => async (req: FastifyRequest, reply: FastifyReply) => {
    let out: { status: number; html: string };
    try {
      out = { status: 200, html: await render((req.query ?? {}) as Params) };
    } catch (e) {
      out = errorPage(e);
    }
    return reply.code(out.status).type('text/html; charset=utf-8').send(out.html);
  };
  app.get('/', html(() => overview(ctx)));
  // What auto-refresh fetches: the overview's live section alone, so the page keeps its scroll and charts.
  app.get('/summary', html(() => liveSection(ctx)));
  app.get('/dashboard.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(DASHBOARD_JS));
  app.get('/search', html((q) => searchHtml(ctx, q)));
  app.get('/diff', html((q) => diffHtml(ctx, q)));
  app.get('/doc', async (req, reply) => {
    const q = (req.query ?? {}) as Params;
    let out: { status: number; html: string };
    try {
      const url = param(q, 'url');
      if (!url) return reply.code(400).type('text/plain').send('give url=, e.g. /doc?url=http://example.org/doc\n');
      out = await documentPage(ctx, url, q);
    } catch (e) {
      out = errorPage(e);
    }
    return reply.code(out.status).type('text/html; charset=utf-8').send(out.html);
  });
}

/**
 * Auto-refresh: with the box ticked (remembered in localStorage), every 10 s the live section is fetched
 * from /summary and swapped in place: unlike a meta refresh, the page keeps its scroll position and state.
 */
const DASHBOARD_JS = `(() => {
  const box = document.getElementById('auto-refresh');
  const live = document.getElementById('live');
  const state = document.getElementById('refresh-state');
  if (!box || !live) return;
  const EVERY_MS = 10000;
  let timer;
  async function refresh() {
    try {
      const res = await fetch('/summary', { headers: { accept: 'text/html' }, cache: 'no-store' });
      if (!res.ok) throw new Error('HTTP ' + res.status);
      live.innerHTML = await res.text();
      state.className = 'muted';
      state.textContent = ' updated ' + new Date().toLocaleTimeString();
    } catch (e) {
      state.className = 'error';
      state.textContent = ' refresh failed (' + e.message + '): trying again in 10 s';
    }
  }
  function run(on) {
    clearInterval(timer);
    timer = on ? setInterval(refresh, EVERY_MS) : undefined;
    if (!on) state.textContent = '';
    try { localStorage.setItem('datamonitor.autoRefresh', on ? '1' : '0'); } catch (e) { /* private mode: not remembered */ }
  }
  box.addEventListener('change', () => { run(box.checked); if (box.checked) refresh(); });
  let saved = false;
  try { saved = localStorage.getItem('datamonitor.autoRefresh') === '1'; } catch (e) { /* not remembered */ }
  if (saved) { box.checked = true; run(true); }
})();
`;
