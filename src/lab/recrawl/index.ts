import type { StrategyBounds } from '../../schedule/types.ts';
import { getStrategy, strategies } from '../../schedule/strategies/index.ts';
import { formatDuration } from '../../schedule/bounds.ts';
import { barChart, stack } from '../../plot/svg.ts';
import { readHistories, type HistorySet } from './histories.ts';
import { simulate, type SimulationResult } from './simulate.ts';
import { simulateBudget } from './budget-sim.ts';
import { documentGroups, GROUPS, report, type Metrics, type StrategyReport } from './metrics.ts';
import { plural } from '../../util/units.ts';
import { applyProtocol, PROTOCOLS, type Protocol } from './protocol.ts';

export { readHistories, historiesFromRecords, type HistorySet } from './histories.ts';
export { simulate } from './simulate.ts';
export { applyProtocol, getProtocol, PROTOCOLS, type Protocol } from './protocol.ts';
export { simulateBudget } from './budget-sim.ts';
export { report, GROUPS, groupOf, type Metrics, type StrategyReport } from './metrics.ts';

export interface RecrawlLabOptions {
  strategies?: string[];
  /** Default: the protocol's (1 day to 6 months). */
  bounds?: StrategyBounds;
  /** Which documents and spans are simulated (default `lab`: whole histories). */
  protocol?: Protocol;
  /** Every adaptive strategy's first interval (default: the protocol's, else each strategy's own). */
  startIntervalMs?: number;
  /** Also run the budget strategy with this many downloads per day. */
  budgetPerDay?: number;
  /** Keep each strategy's per-document counts (`runs`) and the changes per document, for intervals over documents. */
  keepRuns?: boolean;
  onProgress?: (text: string) => void;
}

export interface RecrawlLabResult {
  protocol: Protocol['name'];
  /** undefined: each strategy's own default start. */
  startIntervalMs?: number;
  documents: number;
  changes: number;
  bounds: StrategyBounds;
  reports: StrategyReport[];
  diagnostics: string[];
  /** With keepRuns: each report's simulation (same order), and each document's changes. */
  runs?: SimulationResult[];
  changesPerDocument?: Float64Array;
}

export function runRecrawlLab(all: HistorySet, o: RecrawlLabOptions): RecrawlLabResult {
  const names = o.strategies ?? Object.keys(strategies);
  const chosen = names.map(getStrategy); // unknown names fail before any work
  const protocol = o.protocol ?? PROTOCOLS.lab;
  const bounds = o.bounds ?? protocol.bounds;
  const startIntervalMs = o.startIntervalMs ?? protocol.startIntervalMs;
  const h = applyProtocol(all, protocol);
  const groups = documentGroups(h);
  const reports: StrategyReport[] = [];
  const runs: SimulationResult[] = [];
  for (const s of chosen) {
    o.onProgress?.(`simulating ${s.name} over ${h.ids.length} documents`);
    const sim = simulate(h, s, bounds, { startIntervalMs });
    if (o.keepRuns) runs.push(sim);
    reports.push(report(h, sim, groups));
  }
  if (o.budgetPerDay !== undefined) {
    o.onProgress?.(`simulating budget ${o.budgetPerDay}/day`);
    reports.push(report(h, simulateBudget(h, { downloadsPerDay: o.budgetPerDay, bounds }), groups));
  }
  const out: RecrawlLabResult = { protocol: protocol.name, startIntervalMs, documents: h.ids.length, changes: h.changes.length, bounds, reports, diagnostics: h.diagnostics };
  if (o.keepRuns) {
    out.runs = runs;
    out.changesPerDocument = Float64Array.from(h.ids, (_, d) => h.changeStart[d + 1]! - h.changeStart[d]!);
  }
  return out;
}

export async function runRecrawlLabOnFiles(files: string[], o: RecrawlLabOptions): Promise<RecrawlLabResult> {
  return runRecrawlLab(await readHistories(files), o);
}

const pct = (v: number) => (100 * v).toFixed(1);

function row(name: string, m: Metrics): string {
  return `| ${name} | ${pct(m.recallMicro)} | ${pct(m.precisionMicro)} | ${pct(m.f1Micro)} | ${pct(m.recallMacro)} | ${pct(m.precisionMacro)} | ${m.downloads} | ${m.captured} |`;
}

const HEADER = '| strategy | recall micro % | precision micro % | F1 micro % | recall macro % | precision macro % | downloads | captured |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |';

/** Markdown tables: overall, then one per change-frequency group with documents in it. */
export function formatRecrawlLab(r: RecrawlLabResult, withGroups = true): string {
  const out: string[] = [];
  const start = r.startIntervalMs === undefined ? 'each strategy\'s own start' : `start ${formatDuration(r.startIntervalMs)}`;
  out.push(`Protocol ${r.protocol}: ${r.documents} documents, ${r.changes} changes; intervals ${formatDuration(r.bounds.minIntervalMs)} to ${formatDuration(r.bounds.maxIntervalMs)}, ${start}.`, '', HEADER);
  for (const s of r.reports) out.push(row(s.strategy, s.overall));
  if (withGroups) {
    GROUPS.forEach((g, gi) => {
      const docs = r.reports[0]?.groups[gi]?.documents ?? 0;
      if (!docs) return;
      out.push('', `Mean change interval ${g.label}: ${plural(docs, 'document')}, ${r.reports[0]!.groups[gi]!.changes} changes`, '', HEADER);
      for (const s of r.reports) out.push(row(s.strategy, s.groups[gi]!));
    });
  }
  if (r.diagnostics.length) out.push('', `${r.diagnostics.length} input line(s) skipped or repaired; first: ${r.diagnostics[0]}`);
  return out.join('\n');
}

/** Seed 000's Figures 4–6: recall and precision (micro) per strategy, overall and per group. */
export function recrawlLabSvg(r: RecrawlLabResult, title = 'Re-crawl strategies'): string {
  const cats = r.reports.map((s) => s.strategy);
  const chart = (t: string, pick: (s: StrategyReport) => Metrics) =>
    barChart({
      title: t,
      categories: cats,
      yLabel: 'micro %',
      yMin: 0,
      yMax: 100,
      series: [
        { name: 'recall', values: r.reports.map((s) => 100 * pick(s).recallMicro) },
        { name: 'precision', values: r.reports.map((s) => 100 * pick(s).precisionMicro) },
        { name: 'F1', values: r.reports.map((s) => 100 * pick(s).f1Micro) },
      ],
    });
  const charts = [chart(`${title}: all ${r.documents} documents`, (s) => s.overall)];
  GROUPS.forEach((g, gi) => {
    const docs = r.reports[0]?.groups[gi]?.documents ?? 0;
    if (docs) charts.push(chart(`mean change interval ${g.label} (${plural(docs, 'document')})`, (s) => s.groups[gi]!));
  });
  return stack(charts);
}
