/** The report as one self-contained HTML page: no script, no external file, figures inline. */
import { escapeXml } from '../../util/escape.ts';
import type { LabReport } from './index.ts';
import { VERDICTS, type Verdict } from './types.ts';
import { table } from './format.ts';

const COLOURS: Record<Verdict, string> = { confirmed: '#2ca02c', refuted: '#d62728', mixed: '#ff7f0e', 'not testable here': '#7f7f7f', 'smoke test': '#1f77b4' };

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.8em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 7px;vertical-align:top}
th{background:#f3f3f3;text-align:left}.num{text-align:right}.verdict{font-weight:600;white-space:nowrap}
figure{margin:1em 0}figcaption{font-size:13px;color:#555}section{border-top:2px solid #ddd;margin-top:2em}
.summary span{display:inline-block;margin-right:1.5em}.small{font-size:13px;color:#555}`;

const badge = (v: Verdict) => `<span class="verdict" style="color:${COLOURS[v]}">${escapeXml(v)}</span>`;

export function renderReport(r: LabReport): string {
  const count = (v: Verdict) => r.claims.filter((c) => c.verdict === v).length;
  const out: string[] = [];
  out.push(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>datamonitor: the seeds' claims, replicated</title><style>${STYLE}</style></head><body>`);
  out.push(`<h1>The seeds' claims, rerun by datamonitor's lab</h1>`);
  out.push(`<p class="small">Generated ${escapeXml(r.generated)} by <code>datamonitor lab report${r.quick ? ' --quick' : ''}</code> in ${r.seconds.toFixed(0)} s; data: ${r.quick || !r.sharedData ? 'small built-in data (quick): a smoke test of the code, no verdict on any claim' : escapeXml(r.sharedData)}. Every number below was computed by this run.</p>`);
  out.push(`<p class="summary">${VERDICTS.map((v) => `<span>${badge(v)}: ${count(v)}</span>`).join('')}</p>`);
  out.push('<h2>Verdicts</h2>');
  out.push(`<table><thead><tr><th>seed</th><th>claim</th><th>verdict</th><th>measured</th><th>data</th></tr></thead><tbody>`);
  for (const c of r.claims) {
    out.push(`<tr id="${escapeXml(c.id)}"><td>${escapeXml(c.seed)}</td><td>${escapeXml(c.claim)}${c.figure ? ` <a href="#fig-${escapeXml(c.figure)}">figure</a>` : ''}</td><td>${badge(c.verdict)}${c.smokeOutcome ? `<br><span class="small">the rule on built-in data: ${escapeXml(c.smokeOutcome)}</span>` : ''}</td><td>${escapeXml(c.measured)}</td><td class="small">${escapeXml(c.data)}</td></tr>`);
  }
  out.push('</tbody></table>');
  for (const s of r.sections) {
    out.push(`<section><h2>${escapeXml(s.title)}</h2><p class="small">${s.claims.length} claims in ${s.seconds.toFixed(1)} s</p>`);
    if (s.error) out.push(`<p><strong>This experiment failed:</strong> ${escapeXml(s.error)}</p>`);
    if (s.claims.length) out.push(table(['claim', 'verdict', 'measured'], s.claims.map((c) => [c.claim, c.verdict, c.measured])));
    for (const [key, f] of Object.entries(s.figures)) out.push(`<figure id="fig-${escapeXml(key)}">${f.svg.replace(/^<\?xml[^>]*>\s*/, '')}<figcaption>${escapeXml(f.title)}</figcaption></figure>`);
    for (const d of s.details ?? []) out.push(d);
    out.push('</section>');
  }
  out.push('</body></html>');
  return out.join('\n');
}
