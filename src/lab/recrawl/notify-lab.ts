import type { SteppedStrategy } from '../../schedule/strategies/define.ts';
import { notifiedStrategy, NOTIFIED_OPTIONS, TRUST_LASTMOD_OPTIONS, type NotifiedOptions } from '../../schedule/strategies/notified.ts';
import { DAY } from '../../schedule/types.ts';
import { bootstrapBestOf, bootstrapRatio, holmFamily, type Corrected, type Interval } from '../stats.ts';
import type { HistorySet } from './histories.ts';
import { NOTIFICATION_DEFAULTS, SCENARIOS, type NotificationModel, type NotificationScenario } from './notify-model.ts';
import { simulateNotified, type NotifyRun } from './notify-sim.ts';
import { applyProtocol, PROTOCOLS, type Protocol } from './protocol.ts';
import { atDownloads, paretoFront, sweepStrategy, type SweepPoint } from './sweep.ts';

/** The estimators compared (the best live ones on the shared files, docs/strategies.md) and the oracle. */
export const NOTIFY_ESTIMATORS = ['estimator', 'poisson', 'quiet'] as const;
/** Interval factors swept: wide, because notifications shift a curve's downloads by their fixed polling cost. */
export const NOTIFY_FACTORS: readonly number[] = [0.35, 0.5, 0.7, 1, 1.4, 2, 2.8, 4, 8];
export const QUICK_FACTORS: readonly number[] = [0.5, 1, 2, 4];
/** Budgets: multiples of gold's downloads at its own setting (c = 1). */
export const NOTIFY_MULTIPLES: readonly number[] = [1, 2, 4];

export interface NotifyPoint {
  factor: number;
  /** Document downloads plus sitemap polls / stream pages. */
  downloads: number;
  documentDownloads: number;
  channelDownloads: number;
  captured: number;
  recall: number;
  /** Time-averaged share of documents whose archived copy was current. */
  freshness: number;
  /** Mean days from the first change a download caught to the download. */
  delayDays: number;
  /** Share of the downloads made on a notification that found a change (null: none made). */
  hintPrecision: number | null;
  /** Stopped past the largest budget compared: counts partial, outside every comparison. */
  exceeded: boolean;
}

export interface NotifyCurve {
  strategy: string;
  scenario: NotificationScenario;
  points: NotifyPoint[];
}

export interface BudgetCell {
  multiple: number;
  downloads: number;
  recall: Record<string, number | null>;
  freshness: Record<string, number | null>;
  /** The estimator with the highest recall at this budget. */
  bestEstimator: string | null;
  /** notified's micro recall minus the best estimator's (chosen again in each resample), and minus trust-lastmod's; Holm over the run's family. */
  vsBestEstimator: Corrected | null;
  vsTrustLastmod: Corrected | null;
}

export interface ScenarioResult {
  scenario: NotificationScenario;
  notified: NotifyCurve;
  trustLastmod: NotifyCurve;
  budgets: BudgetCell[];
}

export interface FileRun {
  file: string;
  protocol: Protocol['name'];
  documents: number;
  changes: number;
  goldDownloads: number;
  /** The estimators and gold: they read no notification, so one curve serves every scenario. */
  estimators: NotifyCurve[];
  scenarios: ScenarioResult[];
}

export interface NotifyLabResult {
  model: Omit<NotificationModel, 'scenario'>;
  factors: readonly number[];
  multiples: readonly number[];
  samples: number;
  runs: FileRun[];
}

export interface NotifyLabOptions {
  protocols?: Protocol[];
  scenarios?: readonly NotificationScenario[];
  factors?: readonly number[];
  multiples?: readonly number[];
  model?: Partial<Omit<NotificationModel, 'scenario'>>;
  samples?: number;
  onProgress?: (done: number, total: number, text: string) => void;
}

/** One strategy at factor c: the estimators as `lab recrawl --budget-sweep` sweeps them, the notified pair by their base's interval factor. */
// biome-ignore lint/suspicious/noExplicitAny: strategies keep per-URL states of their own types
export function notifyStrategyAt(name: string, c: number): SteppedStrategy<any> {
  const pair: Record<string, NotifiedOptions> = { notified: NOTIFIED_OPTIONS, 'trust-lastmod': TRUST_LASTMOD_OPTIONS };
  const o = pair[name];
  if (!o) return sweepStrategy(name, c);
  return notifiedStrategy({ ...o, base: { ...o.base, intervalFactor: o.base.intervalFactor * c } });
}

/** A curve with each point's per-document captured counts (for the bootstrap; not in the JSON). */
interface Measured {
  curve: NotifyCurve;
  captured: Int32Array[];
}

function toPoint(factor: number, r: NotifyRun, h: HistorySet): NotifyPoint {
  let dl = 0;
  let cap = 0;
  let stale = 0;
  let span = 0;
  for (let d = 0; d < r.downloads.length; d++) {
    dl += r.downloads[d]!;
    cap += r.captured[d]!;
    stale += r.staleMs[d]!;
    span += h.end[d]! - h.created[d]!;
  }
  return {
    factor,
    downloads: dl + r.channelDownloads,
    documentDownloads: dl,
    channelDownloads: r.channelDownloads,
    captured: cap,
    recall: h.changes.length ? cap / h.changes.length : 0,
    freshness: span > 0 ? 1 - stale / span : 1,
    delayDays: cap ? r.delayMs / cap / DAY : 0,
    hintPrecision: r.hinted ? r.hintedChanged / r.hinted : null,
    exceeded: r.exceeded,
  };
}

interface Ctx {
  h: HistorySet;
  protocol: Protocol;
  model: NotificationModel;
  factors: readonly number[];
  tick: (text: string) => void;
}

function measure(c: Ctx, name: string, scenario: NotificationScenario, maxDownloads?: number): Measured {
  const points: NotifyPoint[] = [];
  const captured: Int32Array[] = [];
  const notices = scenario === 'none' && !(name === 'notified' || name === 'trust-lastmod') ? 'ignore' : 'strategy';
  for (const f of c.factors) {
    c.tick(`${name} under ${scenario} notifications, c = ${f}`);
    const r = simulateNotified(c.h, notifyStrategyAt(name, f), c.protocol.bounds, { model: { ...c.model, scenario }, notices, maxDownloads });
    points.push(toPoint(f, r, c.h));
    captured.push(r.captured);
  }
  return { curve: { strategy: name, scenario, points }, captured };
}

/** The curve at `downloads`, interpolated on its own front (exceeded points left out): recall, freshness and per-document captured counts; undefined below its front. */
function readAt(m: Measured, downloads: number): { recall: number; freshness: number; captured: Float64Array } | undefined {
  const kept = m.curve.points.map((p, i) => ({ p, i })).filter((x) => !x.p.exceeded);
  const sweep: SweepPoint[] = kept.map(({ p }) => ({ factor: p.factor, downloads: p.downloads, captured: p.captured, recall: p.recall, precision: 0, recallMacro: 0, precisionMacro: 0 }));
  // A curve that cannot spend the budget (notified on an honest source needs few downloads whatever its
  // factor) is read at its largest setting: it spends less, never more, than the budget.
  const top = paretoFront(sweep).at(-1);
  const at = top && downloads > top.downloads ? { point: top, lo: top, hi: top, w: 0 } : atDownloads(sweep, downloads);
  if (!at) return undefined;
  const lo = kept[sweep.indexOf(at.lo)]!;
  const hi = kept[sweep.indexOf(at.hi)]!;
  const a = m.captured[lo.i]!;
  const b = m.captured[hi.i]!;
  const captured = new Float64Array(a.length);
  for (let d = 0; d < a.length; d++) captured[d] = a[d]! + at.w * (b[d]! - a[d]!);
  return { recall: at.point.recall, freshness: lo.p.freshness + at.w * (hi.p.freshness - lo.p.freshness), captured };
}

/** Notified against the best estimator and against trust-lastmod at each budget, with paired bootstrap intervals over documents. */
function compare(est: Measured[], gold: Measured, notified: Measured, trust: Measured, budgets: number[], multiples: readonly number[], changes: Float64Array, samples: number): Array<Omit<BudgetCell, 'vsBestEstimator' | 'vsTrustLastmod'> & { best: Interval | null; trust: Interval | null }> {
  return budgets.map((downloads, k) => {
    const recall: Record<string, number | null> = {};
    const freshness: Record<string, number | null> = {};
    const read = new Map<string, ReturnType<typeof readAt>>();
    for (const m of [...est, gold, trust, notified]) {
      const at = readAt(m, downloads);
      read.set(m.curve.strategy, at);
      recall[m.curve.strategy] = at ? at.recall : null;
      freshness[m.curve.strategy] = at ? at.freshness : null;
    }
    let bestEstimator: string | null = null;
    for (const m of est) if (recall[m.curve.strategy] !== null && (bestEstimator === null || recall[m.curve.strategy]! > recall[bestEstimator]!)) bestEstimator = m.curve.strategy;
    const ours = read.get('notified');
    const peers = est.map((m) => read.get(m.curve.strategy)?.captured).filter((x): x is Float64Array => x !== undefined);
    const best = ours && peers.length ? bootstrapBestOf(ours.captured, peers, changes, samples) : null;
    const t = read.get('trust-lastmod');
    let tr: Interval | null = null;
    if (ours && t) {
      const delta = new Float64Array(changes.length);
      for (let d = 0; d < delta.length; d++) delta[d] = ours.captured[d]! - t.captured[d]!;
      tr = bootstrapRatio(delta, changes, samples);
    }
    return { multiple: multiples[k]!, downloads: Math.round(downloads), recall, freshness, bestEstimator, best, trust: tr };
  });
}

function runFile(file: string, all: HistorySet, protocol: Protocol, o: NotifyLabOptions, model: NotificationModel, tick: (text: string) => void): FileRun {
  const h = applyProtocol(all, protocol);
  const factors = o.factors ?? NOTIFY_FACTORS;
  const multiples = o.multiples ?? NOTIFY_MULTIPLES;
  const c: Ctx = { h, protocol, model, factors, tick: (t) => tick(`${file} (${protocol.name}): ${t}`) };
  const gold = measure(c, 'gold', 'none');
  const ref = gold.curve.points.find((p) => p.factor === 1)?.downloads ?? gold.curve.points[Math.floor(gold.curve.points.length / 2)]!.downloads;
  const budgets = multiples.map((m) => m * ref);
  // Past twice the largest budget a run only says "over budget": stop it there (trust-lastmod on a lying sitemap downloads every URL at every poll).
  const cap = 2 * Math.max(...budgets);
  const est = NOTIFY_ESTIMATORS.map((n) => measure(c, n, 'none', cap));
  const changes = Float64Array.from(h.ids, (_, d) => h.changeStart[d + 1]! - h.changeStart[d]!);
  const raw = (o.scenarios ?? SCENARIOS).map((scenario) => {
    const notified = measure(c, 'notified', scenario, cap);
    const trust = measure(c, 'trust-lastmod', scenario, cap);
    return { scenario, notified, trust, cells: compare(est, gold, notified, trust, budgets, multiples, changes, o.samples ?? 1000) };
  });
  // One family per file and protocol: every notified comparison in it, corrected together (Holm).
  const family: Interval[] = [];
  for (const r of raw) for (const cell of r.cells) for (const i of [cell.best, cell.trust]) if (i) family.push(i);
  const corrected = holmFamily(family);
  let k = 0;
  const next = (i: Interval | null) => (i ? corrected[k++]! : null);
  const scenarios = raw.map((r) => ({
    scenario: r.scenario,
    notified: r.notified.curve,
    trustLastmod: r.trust.curve,
    budgets: r.cells.map(({ best, trust, ...cell }) => {
      const vsBestEstimator = next(best);
      return { ...cell, vsBestEstimator, vsTrustLastmod: next(trust) };
    }),
  }));
  return { file, protocol: protocol.name, documents: h.ids.length, changes: h.changes.length, goldDownloads: ref, estimators: [...est.map((m) => m.curve), gold.curve], scenarios };
}

/**
 * Change notifications against the estimators at equal downloads: for every history file and
 * protocol, the estimators and gold once (they read no notification), then `notified` and the naive
 * `trust-lastmod` under each notification scenario (src/lab/recrawl/notify-model.ts), each swept over
 * its interval factor; budgets count sitemap polls and stream pages as downloads.
 */
export function runNotificationLab(files: Array<{ name: string; h: HistorySet }>, o: NotifyLabOptions = {}): NotifyLabResult {
  const protocols = o.protocols ?? [PROTOCOLS.seed, PROTOCOLS.lab];
  const factors = o.factors ?? NOTIFY_FACTORS;
  const scenarios = o.scenarios ?? SCENARIOS;
  const model: NotificationModel = { ...NOTIFICATION_DEFAULTS, ...o.model };
  const total = files.length * protocols.length * factors.length * (NOTIFY_ESTIMATORS.length + 1 + 2 * scenarios.length);
  let done = 0;
  const tick = (text: string) => o.onProgress?.(done++, total, text);
  const runs: FileRun[] = [];
  for (const f of files) for (const p of protocols) runs.push(runFile(f.name, f.h, p, { ...o, factors, scenarios }, model, tick));
  o.onProgress?.(total, total, 'done');
  const { scenario: _, ...params } = model;
  return { model: params, factors, multiples: o.multiples ?? NOTIFY_MULTIPLES, samples: o.samples ?? 1000, runs };
}
