/**
 * docs/strategies.md's sentences about the choices seed 000 leaves open (bench/RECRAWL-REPLICATION.md
 * §1): the start interval, which 3 years, the protocol, window's snapshots, state-*'s sequences and
 * nutch's sync delta, each rerun by src/lab/recrawl/choices.ts (the code the bench prints) on the
 * shared histories and the ChangeLog corpus. A verdict other than `confirmed` means the docs say more
 * than the data does.
 */
import { CHOICES, runChoices, type ChoiceKey, type ChoiceResults } from '../../recrawl/choices.ts';
import { table } from '../format.ts';
import type { Claim, ClaimProvider, ProviderResult } from '../types.ts';
import { FAST_FILE, verdictOver } from './recrawl-bound.ts';
import { recrawlInput } from './recrawl.ts';

const points = (v: number) => `${v >= 0 ? '+' : ''}${(100 * v).toFixed(1)}`;

/** The claims from measured choices (exported for tests: a verdict must follow the numbers). */
export function choiceClaims(r: ChoiceResults, files: string[], data: string): Claim[] {
  const f1 = (k: ChoiceKey, file: string, s: string) => r[k][file]![s]!.f1Micro;
  const downloads = (k: ChoiceKey, file: string, s: string) => r[k][file]![s]!.downloads;
  const each = (f: (file: string) => string) => files.map((x) => `${x} ${f(x)}`).join(', ');
  const claim = (id: string, text: string, measured: string, holds: boolean[]): Claim => ({ id: `000-docs-choice-${id}`, seed: '000', claim: `${text} docs/strategies.md (bench/RECRAWL-REPLICATION.md §1).`, measured, verdict: verdictOver(holds), data: `${data}; seed protocol unless said` });
  const gap = (k: ChoiceKey, file: string) => f1(k, file, 'poisson') - f1(k, file, 'fix');
  const fast = files.filter((f) => f === FAST_FILE);
  const started = ['fix', 'window', 'state-1', 'poisson'];
  const maxShift = (file: string) => Math.max(...Object.keys(r['protocol-seed'][file]!).map((s) => Math.abs(f1('last-3-years', file, s) - f1('protocol-seed', file, s))));
  return [
    claim(
      'start-7d-poisson-leads-fix',
      'Starting every strategy at 7 days, poisson leads fix on micro F1 on every file.',
      `poisson − fix, F1 points: ${each((f) => points(gap('start-7d', f)))}`,
      files.map((f) => gap('start-7d', f) > 0),
    ),
    claim(
      'start-180d-gap-under-1',
      'Starting every strategy at 180 days, the gap between poisson and fix shrinks to under 1 F1 point on every file (so the start interval decides the ranking).',
      `poisson − fix at a 180-day start, F1 points: ${each((f) => points(gap('start-180d', f)))}`,
      files.map((f) => Math.abs(gap('start-180d', f)) < 0.01),
    ),
    claim(
      'start-180d-costs-python-peps',
      `On ${FAST_FILE} a 180-day start costs every strategy F1 against a 7-day start.`,
      fast.length ? `180-day − 7-day start, F1 points: ${started.map((s) => `${s} ${points(f1('start-180d', FAST_FILE, s) - f1('start-7d', FAST_FILE, s))}`).join(', ')}` : `${FAST_FILE} is not in this run (0 of ${files.length} files)`,
      fast.map((f) => started.every((s) => f1('start-180d', f, s) < f1('start-7d', f, s))),
    ),
    claim(
      'last-3-years-matters',
      'Which 3 years the seed protocol takes is not neutral: the last 3 years instead of the first move some strategy\'s micro F1 by more than 3 points on every file.',
      `largest |last − first 3 years| over window, state-1, gold, poisson, F1 points: ${each((f) => (100 * maxShift(f)).toFixed(1))}`,
      files.map((f) => maxShift(f) > 0.03),
    ),
    claim(
      'protocol-flips-python-peps',
      `The protocol changes rankings: on ${FAST_FILE} poisson trails window under the seed protocol and leads it under the lab's.`,
      fast.length ? `poisson − window, F1 points: seed protocol ${points(f1('protocol-seed', FAST_FILE, 'poisson') - f1('protocol-seed', FAST_FILE, 'window'))}, lab protocol ${points(f1('protocol-lab', FAST_FILE, 'poisson') - f1('protocol-lab', FAST_FILE, 'window'))}` : `${FAST_FILE} is not in this run (0 of ${files.length} files)`,
      fast.map((f) => f1('protocol-seed', f, 'poisson') < f1('protocol-seed', f, 'window') && f1('protocol-lab', f, 'poisson') > f1('protocol-lab', f, 'window')),
    ),
    claim(
      'window-same-interval-within-1',
      "window's other reading (snapshots at the current interval only, reset when it changes) moves micro F1 by at most 1 point: no conclusion depends on it.",
      `same-interval − all snapshots, F1 points: ${each((f) => points(f1('window-same', f, 'window-same') - f1('window-all', f, 'window')))}`,
      files.map((f) => Math.abs(f1('window-same', f, 'window-same') - f1('window-all', f, 'window')) <= 0.01),
    ),
    claim(
      'state-per-interval-costs',
      "The seed's per-interval sequences of states cost state-1 and state-2 micro F1 against one mixed sequence (the lab's reading before #15).",
      `per interval − mixed, F1 points: ${each((f) => `state-1 ${points(f1('state-1-per-interval', f, 'state-1') - f1('state-1-mixed', f, 'state-1-mixed'))} / state-2 ${points(f1('state-2-per-interval', f, 'state-2') - f1('state-2-mixed', f, 'state-2-mixed'))}`)}`,
      files.map((f) => f1('state-1-per-interval', f, 'state-1') < f1('state-1-mixed', f, 'state-1-mixed') && f1('state-2-per-interval', f, 'state-2') < f1('state-2-mixed', f, 'state-2-mixed')),
    ),
    claim(
      'nutch-sync-collapses',
      "nutch's sync delta fed with the last download that saw a change pulls quiet pages to the minimum wait: micro F1 under 10 % and over 10× the downloads on every file.",
      `sync delta: ${each((f) => `F1 ${(100 * f1('nutch-sync', f, 'nutch-sync')).toFixed(1)} %, ${(downloads('nutch-sync', f, 'nutch-sync') / downloads('nutch', f, 'nutch')).toFixed(0)}× the downloads`)}`,
      files.map((f) => f1('nutch-sync', f, 'nutch-sync') < 0.1 && downloads('nutch-sync', f, 'nutch-sync') > 10 * downloads('nutch', f, 'nutch')),
    ),
    claim(
      'nutch-more-downloads-than-poisson',
      "nutch's 90-day cap forces more downloads than poisson makes on the slowly changing shared files (about 2×).",
      `nutch ÷ poisson downloads: ${each((f) => (downloads('nutch', f, 'nutch') / downloads('protocol-seed', f, 'poisson')).toFixed(2))}`,
      files.filter((f) => f !== 'changelogs').map((f) => downloads('nutch', f, 'nutch') > 1.5 * downloads('protocol-seed', f, 'poisson')),
    ),
  ];
}

export const recrawlChoicesProvider: ClaimProvider = {
  name: 'recrawl-choices',
  seed: '000',
  title: 'Re-crawl: the choices seed 000 leaves open, measured (datamonitor\'s docs)',
  async run(ctx): Promise<ProviderResult> {
    const { all, label } = await recrawlInput(ctx);
    const r = runChoices(all, (t) => ctx.progress(`recrawl-choices: ${t}`));
    const files = all.map((f) => f.name);
    const details = [
      '<p class="small">Micro F1 % and downloads of each strategy under each choice (seed protocol unless the row says otherwise).</p>',
      table(['choice', ...files], CHOICES.map((c) => [c.label, ...files.map((f) => Object.entries(r[c.key][f]!).map(([n, m]) => `${n} ${(100 * m.f1Micro).toFixed(1)} (${m.downloads})`).join('; '))])),
    ];
    return { claims: choiceClaims(r, files, label), figures: {}, details };
  },
};
