import { formatDuration } from '../../schedule/bounds.ts';
import { barChart, stack, type Chart } from '../../plot/svg.ts';
import type { Corrected } from '../stats.ts';
import type { FileRun, NotifyLabResult, NotifyPoint } from './notify-lab.ts';

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '–' : (100 * v).toFixed(1));
const pts = (v: number) => `${v >= 0 ? '+' : ''}${(100 * v).toFixed(1)}`;

/** An estimate with its 95 % interval and, where Holm rejects "no difference", a star. */
function ci(c: Corrected | null): string {
  if (!c) return '–';
  const star = c.corrected.low > 0 || c.corrected.high < 0 ? '*' : '';
  return `${pts(c.estimate)} [${pts(c.low)}, ${pts(c.high)}]${star}`;
}

function atOne(points: NotifyPoint[]): NotifyPoint {
  return points.find((p) => p.factor === 1) ?? points[Math.floor(points.length / 2)]!;
}

function settingRow(scenario: string, name: string, p: NotifyPoint): string {
  const dl = p.exceeded ? `> ${p.downloads}` : String(p.downloads);
  return `| ${scenario} | ${name} | ${dl} | ${p.channelDownloads} | ${p.captured} | ${pct(p.recall)} | ${p.exceeded ? '–' : pct(p.freshness)} | ${p.delayDays.toFixed(1)} | ${pct(p.hintPrecision)} |`;
}

function formatRun(r: FileRun): string[] {
  const out = [`### ${r.file}, protocol ${r.protocol}: ${r.documents} documents, ${r.changes} changes; gold's downloads ${r.goldDownloads}`, ''];
  out.push('At each strategy\'s registered setting (c = 1):', '');
  out.push('| notifications | strategy | downloads | of which polls/pages | captured | recall % | freshness % | mean delay (days) | hinted downloads that found a change % |', '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const e of r.estimators) out.push(settingRow('–', e.strategy, atOne(e.points)));
  for (const s of r.scenarios) {
    out.push(settingRow(s.scenario, 'trust-lastmod', atOne(s.trustLastmod.points)));
    out.push(settingRow(s.scenario, 'notified', atOne(s.notified.points)));
  }
  out.push('', 'Micro recall % at equal downloads (polls and stream pages included); notified − peer in recall points [95 % bootstrap CI over documents], * where Holm (over this table) rejects no difference:', '');
  out.push('| notifications | budget (× gold) | downloads | gold | best estimator | trust-lastmod | notified | notified − best estimator | notified − trust-lastmod | freshness % notified / best estimator |', '| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const s of r.scenarios) {
    for (const b of s.budgets) {
      const best = b.bestEstimator;
      out.push(`| ${s.scenario} | ${b.multiple} | ${b.downloads} | ${pct(b.recall.gold)} | ${best ? `${best} ${pct(b.recall[best])}` : '–'} | ${pct(b.recall['trust-lastmod'])} | ${pct(b.recall.notified)} | ${ci(b.vsBestEstimator)} | ${ci(b.vsTrustLastmod)} | ${pct(b.freshness.notified)} / ${best ? pct(b.freshness[best]) : '–'} |`);
    }
  }
  return out;
}

export function formatNotificationLab(r: NotifyLabResult): string {
  const m = r.model;
  const out = [
    `Notification model: sitemap or stream polled every ${formatDuration(m.pollMs)} (one download per ${m.urlsPerSitemap} URLs; a stream page of ${m.pageSize} members), lagging by ${formatDuration(m.lagMs)}, missing lastmod on ${Math.round(100 * m.missingShare)} % of URLs, ${m.hosts} synthetic host(s) per source (mixed: at least 6), seed ${m.seed}; factors ${r.factors.join(', ')}; ${r.samples} bootstrap samples.`,
    '',
  ];
  for (const run of r.runs) out.push(...formatRun(run), '');
  return out.join('\n');
}

/** Per file and protocol: micro recall at the middle budget under each notification scenario, for the best estimator, trust-lastmod, notified and gold. */
export function notificationLabSvg(r: NotifyLabResult): string {
  const charts: Chart[] = r.runs.map((run) => {
    const k = Math.min(r.multiples.length - 1, Math.floor(r.multiples.length / 2));
    const cats = run.scenarios.map((s) => s.scenario);
    const at = (pick: (b: (typeof run.scenarios)[0]['budgets'][0]) => number | null | undefined) => run.scenarios.map((s) => 100 * (pick(s.budgets[k]!) ?? 0));
    return barChart({
      title: `${run.file}, protocol ${run.protocol}: recall at ${r.multiples[k]} × gold's downloads (${run.scenarios[0]?.budgets[k]?.downloads ?? '?'}), polls included`,
      categories: cats,
      yLabel: 'micro recall % (0: over budget)',
      yMin: 0,
      yMax: 100,
      series: [
        { name: 'best estimator', values: at((b) => (b.bestEstimator ? b.recall[b.bestEstimator] : null)) },
        { name: 'trust-lastmod', values: at((b) => b.recall['trust-lastmod']) },
        { name: 'notified', values: at((b) => b.recall.notified) },
        { name: 'gold (oracle)', values: at((b) => b.recall.gold) },
      ],
    });
  });
  return stack(charts);
}
