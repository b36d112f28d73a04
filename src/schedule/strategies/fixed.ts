import { WEEK } from '../types.ts';
import { clampInterval } from '../bounds.ts';
import { UserError } from '../../util/errors.ts';
import { defineStrategy } from './define.ts';

/** week (seed 000): a fixed interval of one week. */
export const week = defineStrategy<Record<string, never>>({
  name: 'week',
  summary: 'seed 000: every week',
  initial: () => ({}),
  step: (_s, _obs, ctx) => clampInterval(WEEK, ctx.bounds),
});

/** gold (seed 000): the document's true mean change interval, known in advance (the lab only). */
export const gold = defineStrategy<Record<string, never>>({
  name: 'gold',
  summary: 'seed 000: the true mean change interval, known in advance (lab only)',
  initial: () => ({}),
  step(_s, _obs, ctx) {
    if (ctx.trueMeanIntervalMs === undefined) {
      throw new UserError('strategy "gold" needs the true mean change interval, which only the lab knows: pick another strategy for live URLs');
    }
    return clampInterval(ctx.trueMeanIntervalMs, ctx.bounds);
  },
});
