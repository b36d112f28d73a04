/**
 * The project's one SVG chart kit (no dependency), for the lab's figures and the dashboard: line charts
 * with several series, markers and dash styles (linear or log x, e.g. miss ratio against cache size on
 * log2), an optional y = x reference, grouped bar charts, axis ticks, legend, a title of up to two lines
 * and a footnote; `stack` puts several charts into one SVG file.
 */
import { escapeXml } from '../util/escape.ts';

export interface Chart {
  width: number;
  height: number;
  /** SVG content for a <g> placed at the chart's origin. */
  body: string;
}

export interface LineSeries {
  name: string;
  points: Array<[number, number]>;
  /** Draw a marker at each point (default true). */
  markers?: boolean;
  /** Join the points with a line (default true; false: a scatter plot). */
  line?: boolean;
  /** An SVG stroke-dasharray, e.g. '5 3', to tell a reference curve from the measured ones. */
  dash?: string;
}

export interface LineChartSpec {
  title: string;
  xLabel?: string;
  yLabel?: string;
  series: LineSeries[];
  /** Logarithmic x axis with this base (e.g. 2 or 10). */
  logX?: number;
  xMin?: number;
  xMax?: number;
  yMin?: number;
  yMax?: number;
  /** Draw y = x (dashed grey): e.g. what a random crawler is expected to find. */
  diagonal?: boolean;
  /** A line of small print under the chart (data size, caveats). */
  note?: string;
  width?: number;
  height?: number;
}

export interface BarChartSpec {
  title: string;
  categories: string[];
  series: Array<{ name: string; values: number[] }>;
  yLabel?: string;
  yMin?: number;
  yMax?: number;
  width?: number;
  height?: number;
}

export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
const MARGIN = { left: 60, right: 150, top: 34, bottom: 56 };

function fmt(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-3) return v.toExponential(0);
  if (Number.isInteger(v)) return String(v); // 1024, not 1020: log2 ticks are exact
  return String(+v.toPrecision(3));
}

/** About `count` round ticks covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(+v.toPrecision(12));
  return ticks;
}

function logTicks(lo: number, hi: number, base: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log(lo) / Math.log(base) + 1e-9); base ** e <= hi * (1 + 1e-9); e++) if (base ** e >= lo * (1 - 1e-9)) ticks.push(base ** e);
  return ticks;
}

/** A title's lines: its own line breaks, long lines wrapped at about 80 characters, at most two. */
function titleLines(title: string): string[] {
  return title.split('\n').flatMap((line) => line.match(/.{1,80}(\s|$)/g) ?? [line]).map((l) => l.trim()).filter(Boolean).slice(0, 2);
}

function frame(title: string, w: number, h: number, xLabel?: string, yLabel?: string, note?: string): string {
  const pw = w - MARGIN.left - MARGIN.right;
  const ph = h - MARGIN.top - MARGIN.bottom;
  const lines = titleLines(title);
  let s = lines.length > 1
    ? lines.map((l, i) => `<text x="${MARGIN.left + pw / 2}" y="${14 + i * 15}" text-anchor="middle" font-size="12"${i === 0 ? ' font-weight="bold"' : ''}>${escapeXml(l)}</text>`).join('')
    : `<text x="${MARGIN.left + pw / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(lines[0] ?? '')}</text>`;
  if (note) s += `<text x="${MARGIN.left}" y="${h - 24}" font-size="10" fill="#555">${escapeXml(note)}</text>`;
  s += `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`;
  if (xLabel) s += `<text x="${MARGIN.left + pw / 2}" y="${h - 8}" text-anchor="middle" font-size="12">${escapeXml(xLabel)}</text>`;
  if (yLabel) s += `<text transform="translate(14,${MARGIN.top + ph / 2}) rotate(-90)" text-anchor="middle" font-size="12">${escapeXml(yLabel)}</text>`;
  return s;
}

function yAxis(lo: number, hi: number, h: number, w: number): { y: (v: number) => number; svg: string } {
  const ph = h - MARGIN.top - MARGIN.bottom;
  const y = (v: number) => MARGIN.top + ph - ((v - lo) / (hi - lo || 1)) * ph;
  let svg = '';
  for (const t of niceTicks(lo, hi)) {
    svg += `<line x1="${MARGIN.left}" x2="${w - MARGIN.right}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/>`;
    svg += `<text x="${MARGIN.left - 6}" y="${y(t) + 4}" text-anchor="end" font-size="11">${fmt(t)}</text>`;
  }
  return { y, svg };
}

/** Colour swatches for bars; for line series a stroke sample, dashed as the series is. */
function legend(entries: Array<{ name: string; dash?: string; line?: boolean }>, w: number): string {
  return entries
    .map((e, i) => {
      const y = MARGIN.top + 8 + i * 18;
      const x = w - MARGIN.right + 12;
      const c = PALETTE[i % PALETTE.length];
      const swatch = e.line
        ? `<line x1="${x}" y1="${y - 2}" x2="${x + 14}" y2="${y - 2}" stroke="${c}" stroke-width="2"${e.dash ? ` stroke-dasharray="${e.dash}"` : ''}/>`
        : `<rect x="${x}" y="${y - 8}" width="12" height="12" fill="${c}"/>`;
      return `${swatch}<text x="${x + 18}" y="${y + 2}" font-size="12">${escapeXml(e.name)}</text>`;
    })
    .join('');
}

export function lineChart(spec: LineChartSpec): Chart {
  const w = spec.width ?? 640;
  const h = spec.height ?? 360;
  const base = spec.logX;
  const pts = spec.series.flatMap((s) => s.points).filter(([x, y]) => Number.isFinite(y) && (!base || x > 0));
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const xLo = spec.xMin ?? (xs.length ? Math.min(...xs) : 0);
  const xHi = spec.xMax ?? (xs.length ? Math.max(...xs) : 1);
  const yLo = spec.yMin ?? (ys.length ? Math.min(0, ...ys) : 0);
  const yHi = spec.yMax ?? (ys.length ? Math.max(...ys) : 1);
  const pw = w - MARGIN.left - MARGIN.right;
  const tx = (v: number) => (base ? Math.log(v) : v);
  const x = (v: number) => MARGIN.left + ((tx(v) - tx(xLo)) / (tx(xHi) - tx(xLo) || 1)) * pw;
  const { y, svg: ySvg } = yAxis(yLo, yHi, h, w);
  let body = frame(spec.title, w, h, spec.xLabel, spec.yLabel, spec.note) + ySvg;
  if (spec.diagonal) {
    const lo = Math.max(xLo, yLo);
    const hi = Math.min(xHi, yHi);
    if (hi > lo) body += `<line x1="${x(lo).toFixed(1)}" y1="${y(lo).toFixed(1)}" x2="${x(hi).toFixed(1)}" y2="${y(hi).toFixed(1)}" stroke="#bbb" stroke-dasharray="3 3"/>`;
  }
  const xt = base ? logTicks(xLo, xHi, base) : niceTicks(xLo, xHi);
  for (const t of xt) body += `<text x="${x(t)}" y="${h - MARGIN.bottom + 16}" text-anchor="middle" font-size="11">${fmt(t)}</text><line x1="${x(t)}" x2="${x(t)}" y1="${h - MARGIN.bottom}" y2="${h - MARGIN.bottom + 4}" stroke="#333"/>`;
  spec.series.forEach((s, i) => {
    const c = PALETTE[i % PALETTE.length];
    const p = s.points.filter(([px, py]) => Number.isFinite(py) && (!base || px > 0));
    const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : '';
    if (p.length > 1 && s.line !== false) body += `<polyline fill="none" stroke="${c}" stroke-width="2"${dash} points="${p.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' ')}"/>`;
    if (s.markers !== false) for (const [px, py] of p) body += `<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="3" fill="${c}"/>`;
  });
  body += legend(spec.series.map((s) => ({ name: s.name, dash: s.dash, line: s.line !== false })), w);
  return { width: w, height: h, body };
}

export function barChart(spec: BarChartSpec): Chart {
  const w = spec.width ?? Math.max(480, MARGIN.left + MARGIN.right + spec.categories.length * (18 * spec.series.length + 24));
  const h = spec.height ?? 320;
  const all = spec.series.flatMap((s) => s.values).filter(Number.isFinite);
  const yLo = spec.yMin ?? Math.min(0, ...all);
  const yHi = spec.yMax ?? Math.max(1e-9, ...all);
  const { y, svg: ySvg } = yAxis(yLo, yHi, h, w);
  const pw = w - MARGIN.left - MARGIN.right;
  const slot = pw / Math.max(1, spec.categories.length);
  const bw = (slot * 0.8) / Math.max(1, spec.series.length);
  let body = frame(spec.title, w, h, undefined, spec.yLabel) + ySvg;
  spec.categories.forEach((cat, ci) => {
    const x0 = MARGIN.left + ci * slot + slot * 0.1;
    spec.series.forEach((s, si) => {
      const v = s.values[ci];
      if (v === undefined || !Number.isFinite(v)) return;
      const top = y(Math.max(v, yLo));
      body += `<rect x="${(x0 + si * bw).toFixed(1)}" y="${top.toFixed(1)}" width="${(bw - 1).toFixed(1)}" height="${(y(yLo) - top).toFixed(1)}" fill="${PALETTE[si % PALETTE.length]}"><title>${escapeXml(`${cat} ${s.name}: ${fmt(v)}`)}</title></rect>`;
    });
    body += `<text x="${(x0 + slot * 0.4).toFixed(1)}" y="${h - MARGIN.bottom + 16}" text-anchor="middle" font-size="11">${escapeXml(cat)}</text>`;
  });
  body += legend(spec.series.map((s) => ({ name: s.name })), w);
  return { width: w, height: h, body };
}

/** Several charts one above the other in one SVG document. */
export function stack(charts: Chart[]): string {
  const width = Math.max(0, ...charts.map((c) => c.width));
  let y = 0;
  let parts = '';
  for (const c of charts) {
    parts += `<g transform="translate(0,${y})">${c.body}</g>`;
    y += c.height;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}" font-family="sans-serif"><rect width="100%" height="100%" fill="white"/>${parts}</svg>\n`;
}

export function toSvg(chart: Chart): string {
  return stack([chart]);
}
