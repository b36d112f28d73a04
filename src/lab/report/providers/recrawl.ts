/**
 * Seed 000's re-crawl claims (section 4.3) over the current lab API (runRecrawlLab). The re-crawl
 * lab is being reworked (seed protocol, budget sweeps): when src/lab/recrawl/claims.ts lands, this
 * module is replaced by one that calls it; nothing else in the report depends on what is in here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { lineChart, toSvg } from '../../../plot/svg.ts';
import { DEFAULT_BOUNDS } from '../../../schedule/bounds.ts';
import { SEED_STRATEGIES } from '../../../schedule/strategies/index.ts';
import { GROUPS, historiesFromRecords, readHistories, runRecrawlLab, type HistorySet, type StrategyReport } from '../../recrawl/index.ts';
import { quickHistories } from '../quick-data.ts';
import type { Claim, ClaimProvider, ProviderResult, ReportContext } from '../types.ts';
import { verdictOf } from '../types.ts';
import { pct, table } from '../format.ts';

/** The seed's strategies a crawl can run (gold knows the future: it is the reference, not a rival). */
const RIVALS: string[] = SEED_STRATEGIES.filter((s) => s !== 'gold');

export interface RecrawlInput {
  histories: HistorySet;
  label: string;
}

async function input(ctx: ReportContext): Promise<RecrawlInput> {
  const dir = ctx.sharedData && path.join(ctx.sharedData, 'histories');
  if (!ctx.quick && dir && fs.existsSync(dir)) {
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl.gz')).sort().map((f) => path.join(dir, f));
    if (files.length) return { histories: await readHistories(files), label: `${files.length} real change histories (${files.map((f) => path.basename(f, '.jsonl.gz')).join(', ')})` };
  }
  return { histories: historiesFromRecords(quickHistories()), label: '300 generated Poisson histories over 3 years (quick data)' };
}

/** The claims from one lab run: exported so a test can feed it histories that flip a verdict. */
export function recrawlClaims(reports: StrategyReport[], data: string): Claim[] {
  const by = new Map(reports.map((r) => [r.strategy, r.overall]));
  const rivals = RIVALS.filter((s) => by.has(s));
  const rankBy = (key: 'recallMicro' | 'precisionMicro') => [...rivals].sort((a, b) => by.get(b)![key] - by.get(a)![key]);
  const recall = rankBy('recallMicro');
  const precision = rankBy('precisionMicro');
  const show = (names: string[], key: 'recallMicro' | 'precisionMicro') => names.map((s) => `${s} ${pct(by.get(s)![key])}`).join(', ');
  const claims: Claim[] = [];
  const base = { seed: '000', data, figure: 'recrawl-rp' };
  claims.push({
    ...base,
    id: '000-week-best-recall-worst-precision',
    claim: 'The week strategy performs best in recall and worst in precision.',
    measured: `recall: ${show(recall, 'recallMicro')}; precision: ${show(precision, 'precisionMicro')}`,
    verdict: verdictOf(recall[0] === 'week' && precision[precision.length - 1] === 'week'),
  });
  const stateRanks = ['state-1', 'state-2'].map((s) => recall.indexOf(s) + 1);
  claims.push({
    ...base,
    id: '000-state-second-recall',
    claim: 'The probabilistic strategies state-1 and state-2 are second best in recall (after week).',
    measured: `recall ranks among ${rivals.length} live seed strategies: state-1 #${stateRanks[0]}, state-2 #${stateRanks[1]}`,
    verdict: verdictOf(stateRanks.every((r) => r >= 2 && r <= 3)),
  });
  const window = by.get('window')!;
  claims.push({
    ...base,
    id: '000-window-high-precision',
    claim: 'The window strategy trades recall for a high precision.',
    measured: `window precision ${pct(window.precisionMicro)} (rank #${precision.indexOf('window') + 1}), recall ${pct(window.recallMicro)} (rank #${recall.indexOf('window') + 1})`,
    verdict: verdictOf(precision[0] === 'window'),
  });
  claims.push({
    ...base,
    id: '000-window-very-low-recall',
    claim: 'The window strategy should not be considered due to its very low recall values.',
    measured: `window recall ${pct(window.recallMicro)}, lowest of the others ${pct(Math.min(...rivals.filter((s) => s !== 'window').map((s) => by.get(s)!.recallMicro)))}`,
    // "Very low": the lowest recall, and below half of the best one.
    verdict: verdictOf(recall[recall.length - 1] === 'window' && window.recallMicro < by.get(recall[0])!.recallMicro / 2),
  });
  // Figure 5's band: needs documents changing every 2 days to a week.
  const band = GROUPS.findIndex((g) => g.label === '2 days-1 week');
  const docs = reports[0]?.groups[band]?.documents ?? 0;
  const gold = reports.find((r) => r.strategy === 'gold')?.groups[band];
  if (docs < 30 || !gold) {
    claims.push({ ...base, id: '000-band-2d-1w-state-near-gold', claim: 'For documents changing every 2 days to 1 week, state-* are close to gold.', measured: `only ${docs} document(s) in that band (the seed had ~300)`, verdict: 'not testable here' });
  } else {
    const gap = Math.max(...['state-1', 'state-2'].map((s) => Math.abs(reports.find((r) => r.strategy === s)!.groups[band]!.recallMicro - gold.recallMicro)));
    claims.push({ ...base, id: '000-band-2d-1w-state-near-gold', claim: 'For documents changing every 2 days to 1 week, state-* are close to gold.', measured: `${docs} documents; largest recall gap state-* vs gold ${pct(gap)} points`, verdict: verdictOf(gap <= 0.1) });
  }
  return claims;
}

export function recrawlFigure(reports: StrategyReport[], title: string): string {
  return toSvg(lineChart({
    title,
    xLabel: 'precision (micro)',
    yLabel: 'recall (micro)',
    xMin: 0, xMax: 1, yMin: 0, yMax: 1,
    width: 640, height: 440,
    series: reports.map((r) => ({ name: r.strategy, points: [[r.overall.precisionMicro, r.overall.recallMicro]], line: false })),
  }));
}

export const recrawlProvider: ClaimProvider = {
  name: 'recrawl',
  seed: '000',
  title: 'Re-crawl strategies (seed 000, section 4)',
  async run(ctx): Promise<ProviderResult> {
    const { histories, label } = await input(ctx);
    ctx.progress(`recrawl: simulating ${SEED_STRATEGIES.length} strategies over ${histories.ids.length} documents`);
    const r = runRecrawlLab(histories, { strategies: [...SEED_STRATEGIES], bounds: DEFAULT_BOUNDS });
    const claims = recrawlClaims(r.reports, label);
    const rows = r.reports.map((s) => [s.strategy, pct(s.overall.recallMicro), pct(s.overall.precisionMicro), pct(s.overall.recallMacro), pct(s.overall.precisionMacro), String(s.overall.downloads), String(s.overall.captured)]);
    return {
      claims,
      figures: { 'recrawl-rp': { title: `Recall against precision, ${r.documents} documents, ${r.changes} changes`, svg: recrawlFigure(r.reports, `Seed strategies: ${r.documents} documents (${label.split(' (')[0]})`) } },
      details: [
        `<p>${r.documents} documents, ${r.changes} changes; intervals between 1 day and 180 days (the lab's defaults); each document's whole observed history (not the seed's 3-year window: the re-crawl lab's seed protocol is being built).</p>`,
        table(['strategy', 'recall micro', 'precision micro', 'recall macro', 'precision macro', 'downloads', 'captured'], rows),
      ],
    };
  },
};
