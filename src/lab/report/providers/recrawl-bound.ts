/**
 * docs/strategies.md's "How far above gold a strategy can get" claims (bench/RECRAWL-BOUND.md), each
 * rerun on the data by src/lab/recrawl/bound.ts: four oracles that know more than a live crawler, and
 * the live candidates, all as F1 points above or below gold. The claims are the docs' own sentences,
 * so a verdict other than `confirmed` means the docs say more than the data does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { historiesFromRecords, readHistories, type HistorySet } from '../../recrawl/index.ts';
import { goldBound, overGold, type GoldBound } from '../../recrawl/bound.ts';
import { quickHistories } from '../quick-data.ts';
import { table } from '../format.ts';
import type { Claim, ClaimProvider, ProviderResult, ReportContext, Verdict } from '../types.ts';

type Row = { name: string; b: GoldBound };

/** The file on which the docs say the Bayes bound and quiet pass gold. */
export const FAST_FILE = 'python-peps';

/** The four shared histories (lab protocol), or two generated files with --quick or without ../shared: also used by recrawl-beyond. */
export async function sharedHistoryFiles(ctx: ReportContext): Promise<{ files: Array<{ name: string; h: HistorySet }>; label: string }> {
  const dir = ctx.sharedData && path.join(ctx.sharedData, 'histories');
  if (!ctx.quick && dir && fs.existsSync(dir)) {
    const names = fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl.gz')).sort();
    if (names.length) {
      const out = [];
      for (const n of names) out.push({ name: path.basename(n, '.jsonl.gz'), h: await readHistories([path.join(dir, n)]) });
      return { files: out, label: `${out.length} real change histories (${out.map((f) => f.name).join(', ')}); lab protocol: each document's whole history` };
    }
  }
  return { files: [1, 2].map((k) => ({ name: `generated-${k}`, h: historiesFromRecords(quickHistories(100, 2 + k)) })), label: '2 × 100 generated Poisson histories over 3 years (quick data)' };
}

const signed = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(2)}`;

/** confirmed when the claim holds on every file, refuted on none, mixed in between. */
export function verdictOver(holds: boolean[]): Verdict {
  if (holds.length === 0) return 'not testable here';
  const n = holds.filter(Boolean).length;
  return n === holds.length ? 'confirmed' : n === 0 ? 'refuted' : 'mixed';
}

/** The claims, from measured rows (exported for tests: a verdict must follow the numbers). */
export function boundClaims(rows: Row[], data: string): Claim[] {
  const each = (f: (r: Row) => string) => rows.map((r) => `${r.name} ${f(r)}`).join(', ');
  const fast = (r: Row) => r.name === FAST_FILE;
  const claim = (id: string, text: string, measured: string, holds: boolean[]): Claim => ({ id: `000-docs-bound-${id}`, seed: '000', claim: `${text} docs/strategies.md, "How far above gold a strategy can get".`, measured, verdict: verdictOver(holds), data });
  return [
    claim(
      'bayes-room-only-python-peps',
      `A live strategy that models each URL as a Poisson page has no room above gold except on ${FAST_FILE}: the Bayes bound (a posterior with the oracle's rate histogram as prior, best setting) passes gold by more than 0.1 F1 point only there.`,
      `Bayes bound − gold, F1 points: ${each((r) => signed(overGold(r.b, r.b.bayes.m)))}`,
      rows.map((r) => (overGold(r.b, r.b.bayes.m) > 0.1) === fast(r)),
    ),
    claim(
      'bursts-cost',
      'Re-checking soon after a download that saw a change (Δ of 1, 3, 7 or 14 days, added to gold itself) costs F1 on every file: by the time a change is seen, its burst is over.',
      `gold + best re-check Δ − gold, F1 points: ${each((r) => `${signed(overGold(r.b, r.b.burst.m))} (Δ ${r.b.burst.setting} d)`)}`,
      rows.map((r) => overGold(r.b, r.b.burst.m) < 0),
    ),
    claim(
      'mass-edits-half-point',
      'Waking a whole directory after a mass edit, with the edits and their times read from the future, adds at most half an F1 point to gold.',
      `gold + wake − gold, F1 points: ${each((r) => signed(overGold(r.b, r.b.wake.m)))}`,
      rows.map((r) => overGold(r.b, r.b.wake.m) <= 0.5),
    ),
    claim(
      'gold-factor-small',
      "gold's own interval factor (best c of 0.5–1.5) gains at most 0.3 F1 point.",
      `best c: ${each((r) => `${signed(overGold(r.b, r.b.goldFactor.m))} (c = ${r.b.goldFactor.setting})`)}`,
      rows.map((r) => overGold(r.b, r.b.goldFactor.m) <= 0.3),
    ),
    claim(
      'quiet-source-within-1',
      'quiet and source come within 1.0 F1 point of gold on every file.',
      `quiet − gold: ${each((r) => signed(overGold(r.b, r.b.live.quiet)))}; source − gold: ${each((r) => signed(overGold(r.b, r.b.live.source)))}`,
      rows.map((r) => Math.abs(overGold(r.b, r.b.live.quiet)) <= 1 && Math.abs(overGold(r.b, r.b.live.source)) <= 1),
    ),
    claim(
      'quiet-source-pass-only-python-peps',
      `quiet and source pass gold only on ${FAST_FILE}.`,
      `above gold: ${each((r) => [overGold(r.b, r.b.live.quiet) > 0 && 'quiet', overGold(r.b, r.b.live.source) > 0 && 'source'].filter(Boolean).join(' and ') || 'neither')}`,
      rows.map((r) => (fast(r) ? overGold(r.b, r.b.live.quiet) > 0 && overGold(r.b, r.b.live.source) > 0 : overGold(r.b, r.b.live.quiet) <= 0 && overGold(r.b, r.b.live.source) <= 0)),
    ),
  ];
}

export const recrawlBoundProvider: ClaimProvider = {
  name: 'recrawl-bound',
  seed: '000',
  title: 'Re-crawl: how far above gold a strategy can get (datamonitor\'s docs, lab protocol)',
  async run(ctx): Promise<ProviderResult> {
    const { files: list, label } = await sharedHistoryFiles(ctx);
    const rows: Row[] = list.map((f) => {
      ctx.progress(`recrawl-bound: oracles on ${f.name}`);
      return { name: f.name, b: goldBound(f.h) };
    });
    const margin = (r: Row, m: GoldBound['gold']) => signed(overGold(r.b, m));
    const details = [
      '<p class="small">Micro F1 of gold, and every other column as F1 points above (+) or below (−) gold; oracles take their best setting on each file (a ceiling, not a tuned result). "Forced": the re-downloads the 6-month maximum interval imposes on any strategy, as a share of gold\'s.</p>',
      table(
        ['file', 'gold F1', 'forced', 'gold × c', 'Bayes bound', 'gold + re-check', 'gold + wake', 'poisson', 'quiet', 'source'],
        rows.map((r) => [r.name, (100 * r.b.gold.f1Micro).toFixed(2), `${(100 * r.b.forcedShare).toFixed(1)} %`, margin(r, r.b.goldFactor.m), margin(r, r.b.bayes.m), margin(r, r.b.burst.m), margin(r, r.b.wake.m), margin(r, r.b.live.poisson), margin(r, r.b.live.quiet), margin(r, r.b.live.source)]),
      ),
    ];
    return { claims: boundClaims(rows, label), figures: {}, details };
  },
};
