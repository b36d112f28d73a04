/**
 * The choices seed 000 leaves open, each measured against the seed protocol's default (micro F1 and
 * downloads per strategy and file): the protocol, which 3 years, the start interval, window's
 * snapshots, state-*'s sequences, nutch's sync delta. bench/recrawl-replication.bench.ts prints them as
 * §1 of bench/RECRAWL-REPLICATION.md and `lab report` (provider recrawl-choices) states the docs'
 * sentences about them as claims: one copy of the experiment for both.
 */
import { DAY, MONTH, WEEK } from '../../schedule/types.ts';
import { windowStrategy } from '../../schedule/strategies/window.ts';
import { markovStrategy } from '../../schedule/strategies/markov.ts';
import { NUTCH_DEFAULTS, nutchStrategy } from '../../schedule/strategies/nutch.ts';
import type { SteppedStrategy } from '../../schedule/strategies/define.ts';
import type { HistorySet } from './histories.ts';
import { runRecrawlLab } from './index.ts';
import { report, type Metrics } from './metrics.ts';
import { applyProtocol, PROTOCOLS, type Protocol } from './protocol.ts';
import { simulate } from './simulate.ts';

export type ChoiceKey =
  | 'protocol-lab' | 'protocol-seed' | 'last-3-years' | 'start-7d' | 'start-30d' | 'start-180d'
  | 'window-all' | 'window-same' | 'state-1-per-interval' | 'state-1-mixed' | 'state-2-per-interval' | 'state-2-mixed'
  | 'nutch' | 'nutch-sync';

export interface Choice {
  key: ChoiceKey;
  label: string;
  run(h: HistorySet): Record<string, Metrics>;
}

const LIVE_SEED = ['fix', 'dyn', 'window', 'state-1', 'state-2'];
const PROTOCOL_PEERS = ['window', 'state-1', 'gold', 'poisson'];
const START_PEERS = ['fix', 'window', 'state-1', 'poisson'];

/** Registered strategies under a protocol (and a start for all of them). */
const lab = (p: Protocol, start?: number, names = [...LIVE_SEED, 'gold', 'poisson', 'quiet', 'nutch']) => (h: HistorySet) =>
  Object.fromEntries(runRecrawlLab(h, { protocol: p, startIntervalMs: start, strategies: names }).reports.map((r) => [r.strategy, r.overall]));
/** A variant that is not registered (the other reading of the seed), under a protocol. */
// biome-ignore lint/suspicious/noExplicitAny: any strategy, whatever its per-URL state
const variant = (p: Protocol, s: SteppedStrategy<any>) => (h: HistorySet) => {
  const c = applyProtocol(h, p);
  return { [s.name]: report(c, simulate(c, s, p.bounds)).overall };
};

const seed = PROTOCOLS.seed;
export const CHOICES: Choice[] = [
  { key: 'protocol-lab', label: 'protocol lab (whole histories)', run: lab(PROTOCOLS.lab, undefined, PROTOCOL_PEERS) },
  { key: 'protocol-seed', label: 'protocol seed (first 3 years)', run: lab(seed, undefined, PROTOCOL_PEERS) },
  { key: 'last-3-years', label: 'seed, last 3 years instead', run: lab({ ...seed, windowAt: 'end' }, undefined, PROTOCOL_PEERS) },
  { key: 'start-7d', label: `seed, every strategy starts at ${WEEK / DAY} days`, run: lab(seed, WEEK, START_PEERS) },
  { key: 'start-30d', label: `seed, every strategy starts at ${MONTH / DAY} days`, run: lab(seed, MONTH, START_PEERS) },
  { key: 'start-180d', label: 'seed, every strategy starts at 180 days', run: lab(seed, 180 * DAY, START_PEERS) },
  { key: 'window-all', label: 'window over all snapshots (lab default)', run: lab(seed, undefined, ['window']) },
  { key: 'window-same', label: 'window over same-interval snapshots', run: variant(seed, windowStrategy({ snapshots: 'same-interval', name: 'window-same' })) },
  { key: 'state-1-per-interval', label: 'state-1 sequences per interval (seed; default)', run: lab(seed, undefined, ['state-1']) },
  { key: 'state-1-mixed', label: 'state-1 one mixed sequence (before #15)', run: variant(seed, markovStrategy(1, { sequences: 'mixed', name: 'state-1-mixed' })) },
  { key: 'state-2-per-interval', label: 'state-2 sequences per interval (seed; default)', run: lab(seed, undefined, ['state-2']) },
  { key: 'state-2-mixed', label: 'state-2 one mixed sequence (before #15)', run: variant(seed, markovStrategy(2, { sequences: 'mixed', name: 'state-2-mixed' })) },
  { key: 'nutch', label: 'nutch, no Last-Modified (default)', run: lab(seed, undefined, ['nutch']) },
  { key: 'nutch-sync', label: 'nutch, sync delta from the last change seen', run: variant(seed, nutchStrategy({ ...NUTCH_DEFAULTS, name: 'nutch-sync', modifiedTime: 'last-seen-change' })) },
];

/** Each choice's metrics per strategy, by file name. */
export type ChoiceResults = Record<ChoiceKey, Record<string, Record<string, Metrics>>>;

export function runChoices(files: Array<{ name: string; h: HistorySet }>, onProgress?: (text: string) => void): ChoiceResults {
  const out = {} as ChoiceResults;
  for (const c of CHOICES) {
    onProgress?.(`choice: ${c.label}`);
    out[c.key] = Object.fromEntries(files.map((f) => [f.name, c.run(f.h)]));
  }
  return out;
}
