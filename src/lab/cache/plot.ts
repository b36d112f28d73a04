/**
 * Miss ratio against cache size as an SVG line chart (log2 x axis). The shared
 * chart module src/lab/plot/svg.ts did not exist when this was written, so this
 * is a minimal chart of the lab's own.
 */
import type { CacheLabResult } from './simulate.ts';

const COLORS: Record<string, string> = {
  random: '#d62728', static: '#9467bd', lru: '#1f77b4', clock: '#2ca02c', min: '#000000', infinite: '#7f7f7f',
};

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function missRatioSvg(result: CacheLabResult, title = 'Miss ratio against cache size'): string {
  const W = 720, H = 440, L = 64, R = 130, T = 40, B = 56;
  const pw = W - L - R, ph = H - T - B;
  const sizes = result.sizes.filter((s) => s > 0);
  const maxExp = Math.max(1, Math.ceil(Math.log2(Math.max(1, ...sizes))));
  const yMax = Math.min(1, Math.max(0.05, ...result.curves.flatMap((c) => c.points.map((p) => p.missRatio))) * 1.05);
  const x = (size: number) => L + (Math.log2(Math.max(1, size)) / maxExp) * pw;
  const y = (ratio: number) => T + ph - (ratio / yMax) * ph;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="${L + pw / 2}" y="22" text-anchor="middle" font-size="14">${esc(title)}</text>`);
  out.push(`<text x="${L + pw / 2}" y="${H - 12}" text-anchor="middle">cache size (entries, log₂ scale)</text>`);
  out.push(`<text transform="translate(16 ${T + ph / 2}) rotate(-90)" text-anchor="middle">miss ratio</text>`);
  out.push(`<rect x="${L}" y="${T}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  const xStep = Math.max(1, Math.ceil(maxExp / 12));
  for (let e = 0; e <= maxExp; e += xStep) {
    const px = x(2 ** e);
    out.push(`<line x1="${px}" y1="${T + ph}" x2="${px}" y2="${T + ph + 5}" stroke="#333"/><text x="${px}" y="${T + ph + 18}" text-anchor="middle">2${e === 0 ? '⁰' : `^${e}`}</text>`);
  }
  for (let i = 0; i <= 5; i++) {
    const v = (yMax * i) / 5, py = y(v);
    out.push(`<line x1="${L - 5}" y1="${py}" x2="${L + pw}" y2="${py}" stroke="#ddd"/><text x="${L - 8}" y="${py + 4}" text-anchor="end">${v.toFixed(2)}</text>`);
  }
  result.curves.forEach((c, i) => {
    const color = COLORS[c.policy] ?? '#ff7f0e';
    const pts = c.points.filter((p) => p.size > 0).map((p) => `${x(p.size).toFixed(1)},${y(p.missRatio).toFixed(1)}`).join(' ');
    const dash = c.policy === 'infinite' || c.policy === 'min' ? ' stroke-dasharray="5 3"' : '';
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.8"${dash} points="${pts}"/>`);
    const ly = T + 14 + i * 18;
    out.push(`<line x1="${L + pw + 12}" y1="${ly - 4}" x2="${L + pw + 36}" y2="${ly - 4}" stroke="${color}" stroke-width="2"${dash}/><text x="${L + pw + 42}" y="${ly}">${esc(c.policy)}</text>`);
  });
  out.push(`<text x="${L}" y="${H - 30}" font-size="10" fill="#555">${esc(`${result.requests} requests, ${result.distinct} distinct URLs; first requests count as misses`)}</text>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}
