/**
 * The dashboard: server-rendered HTML with inline SVG charts (src/plot/svg.ts), no front-end build.
 * `/` shows the crawl's progress and log, the change-frequency histogram, estimated against actual cycle
 * times, and the re-crawl lab's charts; `/doc?url=` one document's version timeline.
 */
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { barChart, escapeXml as esc, lineChart, toSvg } from '../plot/svg.ts';
import { recrawlLabSvg, type RecrawlLabResult } from '../lab/recrawl/index.ts';
import type { ChangeFrequency, DocumentState, ProgressPoint } from '../store/types.ts';
import type { ServerContext } from './context.ts';
import { archivedUrlKey, mementosOf } from './mementos.ts';

const STYLE = `body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1400px}h1{margin:0 0 .2em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}th{background:#f3f3f3}
.charts{display:flex;flex-wrap:wrap;gap:12px}.charts svg{border:1px solid #eee}.muted{color:#777}.kv td:first-child{font-weight:bold}
.error{color:#b00}.changed{color:#d62728}.new{color:#1f77b4}.unchanged{color:#777}nav a{margin-right:1em}code{font-size:12px}`;

function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>`
    + `<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><style>${STYLE}</style></head>`
    + `<body><nav><a href="/">dashboard</a><a href="/sparql">SPARQL</a></nav>${body}</body></html>\n`;
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

async function overview(ctx: ServerContext): Promise<string> {
  // Aggregates and the latest entries come from the store as GROUP BY and LIMIT queries, not the whole log.
  const counts = await ctx.store.logCounts();
  const states: DocumentState[] = ['queued', 'fetched', 'failed', 'skipped'];
  const docCounts = await Promise.all(states.map((s) => ctx.store.countDocuments(s)));
  const archive = await ctx.index.current();
  const stats = archive.stats();
  let body = `<h1>datamonitor</h1><p class="muted">Archive in <code>${esc(ctx.dataDir)}</code>; versioned store ${esc(ctx.index.source)}.</p>`;
  body += `<table class="kv" id="summary"><tr><td>documents</td><td>${docCounts.reduce((a, b) => a + b, 0)} (${states.map((s, i) => `${docCounts[i]} ${s}`).join(', ')})</td></tr>`
    + `<tr><td>log entries</td><td>${counts.entries}</td></tr><tr><td>RDF graphs</td><td>${stats.graphs} documents, ${stats.versions} versions, ${stats.rows} triple rows</td></tr></table>`;
  body += '<h2>Crawl progress</h2>';
  if (counts.entries === 0) body += '<p class="muted">Nothing crawled yet: <code>datamonitor crawl --data DIR SEED…</code></p>';
  else {
    // Maps in order of first appearance in the log, as the tables' tie order has always been.
    const byStatus = new Map(counts.byStatus.map((g) => [g.status ? String(g.status) : 'no response', g.entries]));
    const byChange = new Map<string, number>(counts.byChange.map((g) => [g.change, g.entries]));
    body += `<div class="charts" id="progress-charts">${progressChart(await ctx.store.logProgress(PROGRESS_POINTS), counts.entries)}${countsChart('Log entries by HTTP status', byStatus)}${countsChart('Log entries by change', byChange)}</div>`;
    // Why each URL ended as it did (src/crawler/reasons.ts): what `datamonitor log --reason R` lists.
    const byReason = new Map<string, number>(counts.byReason.map((g) => [g.reason || '(before reasons)', g.entries]));
    body += `<div class="charts">${countsTable('status', byStatus)}${countsTable('change', byChange)}<div id="reasons">${countsTable('reason', byReason)}</div></div>`;
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
  return page('datamonitor dashboard', body);
}

/** One document's versions: a timeline of its captures (triples, coloured by change) and their mementos. */
async function documentPage(ctx: ServerContext, url: string): Promise<{ status: number; html: string }> {
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
  const rows = list.map((m, i) => ({ m, graphTriples: points[i]!.triples })).reverse().map(({ m, graphTriples }) => {
    const e = m.entry;
    const memento = `/memento/${m.timestamp}/${key}`;
    return `<tr><td>${iso(e.time)}</td><td>${e.status || ''}</td><td class="${e.change}">${e.change}</td><td>${esc(e.mediaType ?? '')}</td><td>${e.bytes}</td><td>${graphTriples}</td><td><code>${esc(e.checksum ?? '')}</code></td>`
      + `<td><a href="${esc(memento)}">bytes</a> · <a href="${esc(memento)}?format=nquads">N-Quads</a>`
      + `${/html/i.test(e.mediaType ?? '') ? ` · <a href="${esc(`/replay/${m.timestamp}/${key}`)}">browse</a>` : ''}</td></tr>`;
  }).join('');
  const body = `<h1>${esc(key)}</h1><p><a href="/timemap/link/${esc(key)}">TimeMap</a> · <a href="/timemap/json/${esc(key)}">TimeMap (JSON)</a> · <a href="/timegate/${esc(key)}">TimeGate</a> · <a href="/cdx?url=${encodeURIComponent(key)}">CDXJ</a></p>`
    + `<div class="charts" id="timeline">${chart}</div><h2>Captures</h2><table id="versions"><tr><th>time</th><th>status</th><th>change</th><th>type</th><th>bytes</th><th>triples in the graph</th><th>payload digest</th><th>memento</th></tr>${rows}</table>`;
  return { status: 200, html: page(key, body) };
}

export function registerDashboardRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/', async (_req, reply) => reply.type('text/html; charset=utf-8').send(await overview(ctx)));
  app.get('/doc', async (req, reply) => {
    const url = (req.query as { url?: string }).url;
    if (!url) return reply.code(400).type('text/plain').send('give url=, e.g. /doc?url=http://example.org/doc\n');
    const { status, html } = await documentPage(ctx, url);
    return reply.code(status).type('text/html; charset=utf-8').send(html);
  });
}
