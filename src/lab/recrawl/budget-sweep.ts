import type { StrategyBounds } from '../../schedule/types.ts';
import { formatDuration } from '../../schedule/bounds.ts';
import { getStrategy, strategies } from '../../schedule/strategies/index.ts';
import { lineChart, stack, type Chart } from '../../plot/svg.ts';
import { plural } from '../../util/units.ts';
import type { HistorySet } from './histories.ts';
import { applyProtocol, PROTOCOLS, type Protocol } from './protocol.ts';
import { atDownloads, paretoFront, sweep, type StrategySweep, type SweepPoint } from './sweep.ts';

/** Recall (micro and macro) of every strategy at one download budget; null where its sweep does not reach it. */
export interface BudgetRow {
  downloads: number;
  recall: Record<string, number | null>;
  recallMacro: Record<string, number | null>;
  /** The strategy with the highest micro recall at this budget. */
  best: string | null;
}

export interface BudgetSweepResult {
  protocol: Protocol['name'];
  startIntervalMs?: number;
  bounds: StrategyBounds;
  documents: number;
  changes: number;
  sweeps: StrategySweep[];
  /** Over every strategy's points: those no other point beats on downloads and captured together. */
  front: Array<{ strategy: string; factor: number; downloads: number; captured: number }>;
  budgets: BudgetRow[];
  bands: Array<{ band: string; documents: number; changes: number; budgets: BudgetRow[] }>;
}

export interface BudgetSweepOptions {
  strategies?: string[];
  protocol?: Protocol;
  bounds?: StrategyBounds;
  startIntervalMs?: number;
  factors?: readonly number[];
  /** Budgets as multiples of the reference (gold's downloads at c = 1, else the smallest default). */
  budgetMultiples?: readonly number[];
  onProgress?: (text: string) => void;
}

export const BUDGET_MULTIPLES: readonly number[] = [1, 1.25, 1.5, 2, 3];

function rows(sweeps: Array<{ strategy: string; points: SweepPoint[] }>, budgets: number[]): BudgetRow[] {
  return budgets.map((downloads) => {
    const recall: Record<string, number | null> = {};
    const recallMacro: Record<string, number | null> = {};
    let best: string | null = null;
    for (const s of sweeps) {
      const at = atDownloads(s.points, downloads);
      recall[s.strategy] = at ? at.point.recall : null;
      recallMacro[s.strategy] = at ? at.point.recallMacro : null;
      if (at && (best === null || at.point.recall > recall[best]!)) best = s.strategy;
    }
    return { downloads: Math.round(downloads), recall, recallMacro, best };
  });
}

function referenceDownloads(sweeps: StrategySweep[]): number {
  const at1 = (s: StrategySweep) => (s.points.find((p) => p.factor === 1) ?? s.points[Math.floor(s.points.length / 2)]!).downloads;
  const gold = sweeps.find((s) => s.strategy === 'gold');
  return gold ? at1(gold) : Math.min(...sweeps.map(at1));
}

/**
 * Seed 000 compares recall–precision pairs, and a strategy that downloads more buys recall with
 * precision; so every strategy is swept over its budget parameter (sweep.ts) and compared at equal
 * downloads: micro and macro recall at a few budgets, overall and per change-rate band.
 */
export function runBudgetSweep(all: HistorySet, o: BudgetSweepOptions = {}): BudgetSweepResult {
  const names = o.strategies ?? Object.keys(strategies);
  for (const n of names) getStrategy(n); // unknown names fail before any work
  const protocol = o.protocol ?? PROTOCOLS.lab;
  const bounds = o.bounds ?? protocol.bounds;
  const startIntervalMs = o.startIntervalMs ?? protocol.startIntervalMs;
  const h = applyProtocol(all, protocol);
  const sweeps = names.map((n) => sweep(h, n, { bounds, startIntervalMs, factors: o.factors, onProgress: o.onProgress }));
  const ref = referenceDownloads(sweeps);
  const budgets = (o.budgetMultiples ?? BUDGET_MULTIPLES).map((m) => m * ref);
  const front = paretoFront(sweeps.flatMap((s) => s.points.map((p) => ({ strategy: s.strategy, factor: p.factor, downloads: p.downloads, captured: p.captured }))));
  const bandNames = sweeps[0]?.bands.map((b) => b.band) ?? [];
  const bands = bandNames.map((band) => {
    const per = sweeps.map((s) => ({ strategy: s.strategy, ...s.bands.find((b) => b.band === band)! }));
    const bandRef = referenceDownloads(per.map((p) => ({ strategy: p.strategy, parameter: '', points: p.points, bands: [] })));
    return { band, documents: per[0]!.documents, changes: per[0]!.changes, budgets: rows(per, (o.budgetMultiples ?? BUDGET_MULTIPLES).map((m) => m * bandRef)) };
  });
  return { protocol: protocol.name, startIntervalMs, bounds, documents: h.ids.length, changes: h.changes.length, sweeps, front, budgets: rows(sweeps, budgets), bands };
}

const pct = (v: number | null) => (v === null ? '–' : (100 * v).toFixed(1));

function budgetTable(budgets: BudgetRow[], names: string[], macro = false): string[] {
  const out = [`| downloads | ${names.join(' | ')} | best |`, `| ---: | ${names.map(() => '---:').join(' | ')} | --- |`];
  for (const b of budgets) out.push(`| ${b.downloads} | ${names.map((n) => pct((macro ? b.recallMacro : b.recall)[n]!)).join(' | ')} | ${b.best ?? '–'} |`);
  return out;
}

export function formatBudgetSweep(r: BudgetSweepResult): string {
  const names = r.sweeps.map((s) => s.strategy);
  const start = r.startIntervalMs === undefined ? "each strategy's own start" : `start ${formatDuration(r.startIntervalMs)}`;
  const out = [`Protocol ${r.protocol}: ${r.documents} documents, ${r.changes} changes; intervals ${formatDuration(r.bounds.minIntervalMs)} to ${formatDuration(r.bounds.maxIntervalMs)}, ${start}.`, ''];
  out.push('| strategy | parameter | c | downloads | captured | recall micro % | precision micro % | recall macro % | precision macro % |', '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const s of r.sweeps) for (const p of s.points) out.push(`| ${s.strategy} | ${s.parameter} | ${p.factor} | ${p.downloads} | ${p.captured} | ${pct(p.recall)} | ${pct(p.precision)} | ${pct(p.recallMacro)} | ${pct(p.precisionMacro)} |`);
  out.push('', 'Micro recall % at equal downloads (each strategy interpolated on its own front; – where its sweep does not reach):', '', ...budgetTable(r.budgets, names));
  out.push('', 'Macro recall % at the same downloads:', '', ...budgetTable(r.budgets, names, true));
  for (const b of r.bands) out.push('', `Band ${b.band} (${plural(b.documents, 'document')}, ${b.changes} changes), micro recall % at equal downloads:`, '', ...budgetTable(b.budgets, names));
  out.push('', `Pareto front (downloads → captured): ${r.front.map((p) => `${p.strategy}×${p.factor} ${p.downloads}→${p.captured}`).join(', ')}`);
  return out.join('\n');
}

/** Recall against downloads per strategy (log x), the front dashed: the comparison at equal budgets as a picture. */
export function budgetSweepSvg(r: BudgetSweepResult, title = 'Re-crawl strategies at equal downloads'): string {
  return stack([budgetSweepChart(r, title)]);
}

export function budgetSweepChart(r: BudgetSweepResult, title: string): Chart {
  const series = r.sweeps.map((s) => ({ name: s.strategy, points: paretoFront(s.points).map((p) => [p.downloads, 100 * p.recall] as [number, number]) }));
  series.push({ name: 'front (all)', points: r.front.map((p) => [p.downloads, (100 * p.captured) / Math.max(1, r.changes)] as [number, number]), dash: '5 3', markers: false } as (typeof series)[0]);
  return lineChart({
      title: `${title}: ${r.documents} documents (protocol ${r.protocol})`,
      xLabel: 'downloads (log)',
      yLabel: 'micro recall %',
      logX: 10,
      yMin: 0,
      yMax: 100,
      series,
    note: 'each strategy swept over its budget parameter; points on its own front only',
  });
}
