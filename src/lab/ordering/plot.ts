/**
 * A minimal SVG line chart for the ordering lab's curves (fraction of hot pages found against the
 * fraction of pages crawled, as in seed 001's figures). Both axes run from 0 to 1. Written here
 * because the shared src/lab/plot/svg.ts did not exist yet.
 */

export interface Series {
  name: string;
  points: readonly (readonly [number, number])[];
}

export interface ChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
  /** Draw y = x, the expected curve of a random crawler under the threshold model. */
  diagonal?: boolean;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#7f7f7f', '#8c564b', '#e377c2'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3', '1 2', '10 4'];

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function lineChartSvg(spec: ChartSpec): string {
  const width = 640;
  const height = 440;
  const m = { left: 60, right: 150, top: 52, bottom: 50 };
  const w = width - m.left - m.right;
  const h = height - m.top - m.bottom;
  const x = (v: number) => (m.left + v * w).toFixed(1);
  const y = (v: number) => (m.top + (1 - v) * h).toFixed(1);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
  ];
  // A long title goes on lines of at most about 80 characters (the chart is 640 px wide).
  const titleLines = spec.title.split('\n').flatMap((line) => line.match(/.{1,80}(\s|$)/g) ?? [line]);
  titleLines.slice(0, 2).forEach((line, i) => out.push(`<text x="${width / 2}" y="${18 + i * 16}" text-anchor="middle" font-size="13">${escapeXml(line.trim())}</text>`));
  for (let t = 0; t <= 5; t++) {
    const v = t / 5;
    out.push(
      `<line x1="${x(v)}" y1="${y(0)}" x2="${x(v)}" y2="${y(1)}" stroke="#eee"/>`,
      `<line x1="${x(0)}" y1="${y(v)}" x2="${x(1)}" y2="${y(v)}" stroke="#eee"/>`,
      `<text x="${x(v)}" y="${m.top + h + 16}" text-anchor="middle">${v.toFixed(1)}</text>`,
      `<text x="${m.left - 6}" y="${Number(y(v)) + 4}" text-anchor="end">${v.toFixed(1)}</text>`,
    );
  }
  out.push(
    `<rect x="${m.left}" y="${m.top}" width="${w}" height="${h}" fill="none" stroke="#333"/>`,
    `<text x="${m.left + w / 2}" y="${height - 12}" text-anchor="middle">${escapeXml(spec.xLabel)}</text>`,
    `<text transform="translate(16 ${m.top + h / 2}) rotate(-90)" text-anchor="middle">${escapeXml(spec.yLabel)}</text>`,
  );
  if (spec.diagonal) out.push(`<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#bbb" stroke-dasharray="3 3"/>`);
  spec.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const dash = DASHES[i % DASHES.length];
    const pts = s.points.map(([px, py]) => `${x(px)},${y(py)}`).join(' ');
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.8"${dash ? ` stroke-dasharray="${dash}"` : ''} points="${pts}"/>`);
    const ly = m.top + 10 + i * 18;
    out.push(
      `<line x1="${m.left + w + 12}" y1="${ly}" x2="${m.left + w + 40}" y2="${ly}" stroke="${color}" stroke-width="1.8"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
      `<text x="${m.left + w + 46}" y="${ly + 4}">${escapeXml(s.name)}</text>`,
    );
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
