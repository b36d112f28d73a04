import { DAY, type SourcePrior, type StrategyContext } from '../types.ts';
import { clampInterval } from '../bounds.ts';
import { mleRate } from '../estimate.ts';
import { defineStrategy, type SteppedStrategy } from './define.ts';
import { emptyRateState, observe, type RateState } from './rate.ts';

export interface SourceOptions {
  name: string;
  summary: string;
  /** How many recent observations of the URL to keep, and the weight decay^age of each. */
  capacity: number;
  decay: number;
  /** Next interval = intervalFactor / λ̂. */
  intervalFactor: number;
  /** The source's fitted Gamma prior is used with its pseudo-counts × this (1 = as fitted). */
  sourceStrength: number;
  /** Prior when the source has shown nothing yet (and for callers that pass no `sourcePrior`): pseudo-changes per pseudo-exposure. */
  fallbackChanges: number;
  fallbackExposureMs: number;
  /** A probe: the first re-check of a new URL this soon after its first download. */
  probeMs: number;
  /** Until the source has scheduled this many probes, every new URL is probed (exploration). */
  probesWanted: number;
  /** New URLs are probed when the share of probes that saw a change reaches this; otherwise they start at the maximum. */
  probeThreshold: number;
}


/** How long a new URL waits before its first re-check: probe while the source is unknown or its new URLs change early, else the maximum. */
export function firstInterval(o: SourceOptions, prior: SourcePrior | undefined, ctx: StrategyContext): number {
  // Without a source tally (a caller that does not keep one) a new URL is presumed quiet, as in `quiet`.
  if (!prior) return ctx.bounds.maxIntervalMs;
  if (prior.probesScheduled < o.probesWanted) return clampInterval(o.probeMs, ctx.bounds);
  const probes = prior.firstChecks;
  // Probes still out (URLs that appeared together): too little known yet, presume quiet.
  if (probes.downloads < o.probesWanted) return ctx.bounds.maxIntervalMs;
  // Laplace-smoothed share of probes that saw a change: is a probe of a new URL worth a download?
  const share = (probes.changes + 0.5) / (probes.downloads + 1);
  return clampInterval(share >= o.probeThreshold ? o.probeMs : Number.POSITIVE_INFINITY, ctx.bounds);
}

/**
 * source: poisson's rate estimate (MAP, Gamma prior) where the prior is fitted per source (empirical
 * Bayes): the Gamma distribution of the change rates of the source's URLs so far (`ctx.sourcePrior`,
 * past observations only; src/schedule/source-prior.ts), its pseudo-counts × `sourceStrength`. A new
 * URL's first re-check is a one-day probe while the source is unknown (its first `probesWanted` new URLs)
 * and whenever at least `probeThreshold` of the source's probes saw a change (python-peps: PEPs are edited within a day
 * of creation); otherwise it waits the maximum interval (tldr-pages, cmake-help). Without a
 * `sourcePrior` (a caller that keeps no tally) it falls back to a fixed prior and a quiet start.
 * Interval = intervalFactor/λ̂, with the rate floor lowered so that a quiet URL still reaches the maximum.
 * See docs/strategies.md.
 */
export function sourceStrategy(o: SourceOptions): SteppedStrategy<RateState> {
  return defineStrategy<RateState>({
    name: o.name,
    summary: o.summary,
    initial: (ctx) => emptyRateState(o.capacity, firstInterval(o, ctx.sourcePrior, ctx)),
    step(s, obs, ctx) {
      if (obs.first) {
        // The source may have learnt more since `initial`: decide the first re-check now.
        s.intervalMs = Math.round(firstInterval(o, ctx.sourcePrior, ctx));
        return s.intervalMs;
      }
      const { window } = observe(s, obs.changed, o.capacity, o.decay);
      // A factor below 1 must still let a quiet URL reach the maximum interval: the rate floor is c/max.
      const floor = Math.min(1, o.intervalFactor) / ctx.bounds.maxIntervalMs;
      const cap = 1 / ctx.bounds.minIntervalMs;
      const fitted = ctx.sourcePrior !== undefined && ctx.sourcePrior.exposureMs > 0;
      const priorChanges = fitted ? ctx.sourcePrior!.changes * o.sourceStrength : o.fallbackChanges;
      const priorExposure = fitted ? ctx.sourcePrior!.exposureMs * o.sourceStrength : o.fallbackExposureMs;
      let lambda = mleRate(window, floor, cap, priorChanges, priorExposure);
      lambda = lambda < floor ? floor : Math.min(lambda, cap);
      s.ratePerDay = lambda * DAY;
      s.intervalMs = Math.round(clampInterval(o.intervalFactor / lambda, ctx.bounds));
      return s.intervalMs;
    },
  });
}

export const SOURCE_OPTIONS: SourceOptions = {
  name: 'source',
  summary: 'Poisson rate MAP estimate with a prior per source (empirical Bayes from its other URLs so far); new URLs probed early only where the source\'s new URLs change early',
  capacity: 128,
  decay: 1,
  intervalFactor: 0.7,
  sourceStrength: 0.2,
  fallbackChanges: 0.25,
  fallbackExposureMs: 90 * DAY,
  probeMs: DAY,
  probesWanted: 20,
  probeThreshold: 0.2,
};

export const source = sourceStrategy(SOURCE_OPTIONS);
