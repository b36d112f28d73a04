import { UserError } from '../../util/errors.ts';
import type { SteppedStrategy } from './define.ts';
import { dyn, fix } from './snapshots.ts';
import { window } from './window.ts';
import { state1, state2 } from './markov.ts';
import { gold, week } from './fixed.ts';
import { estimator, poisson } from './rate.ts';
import { quiet } from './quiet.ts';
import { nutch } from './nutch.ts';
import { notified } from './notified.ts';

export type { SteppedStrategy } from './define.ts';

/** Seed 000's strategies, in the seed's order. */
export const SEED_STRATEGIES = ['fix', 'dyn', 'window', 'state-1', 'state-2', 'gold', 'week'] as const;

// biome-ignore lint/suspicious/noExplicitAny: strategies keep per-URL states of their own types
export const strategies: Record<string, SteppedStrategy<any>> = {
  fix,
  dyn,
  window,
  'state-1': state1,
  'state-2': state2,
  gold,
  week,
  estimator,
  poisson,
  quiet,
  nutch,
  notified,
};

/** Strategies a live URL can use (gold needs the future). */
export function isLiveStrategy(name: string): boolean {
  return name !== 'gold' && name in strategies;
}

// biome-ignore lint/suspicious/noExplicitAny: strategies keep per-URL states of their own types
export function getStrategy(name: string): SteppedStrategy<any> {
  const s = Object.hasOwn(strategies, name) ? strategies[name] : undefined;
  if (!s) throw new UserError(`unknown strategy "${name}": use one of ${Object.keys(strategies).join(', ')}`);
  return s;
}
