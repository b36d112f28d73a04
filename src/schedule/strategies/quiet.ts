import { rateStrategy, type RateOptions } from './rate.ts';

const DAY_MS = 86_400_000;

/**
 * quiet: the Poisson rate estimate of `poisson`, but a new URL is presumed quiet. Its first re-check
 * waits the maximum interval (6 months by default), and the Gamma prior (0.25 pseudo-change per
 * 90 days: a prior mean interval of one year) keeps it there until the URL itself shows changes.
 * Why: on the shared histories almost every document changes less than twice a year, so the 6-month
 * cap forces nearly all downloads and every download spent learning a quiet URL is wasted (poisson's
 * 1-week start costs tldr-pages 12,800 re-downloads for 460 changes). All 32 kept observations weigh
 * the same (no decay) and interval = 1/λ̂. Chosen by a grid on tldr-pages and cmake-help only;
 * python-peps and schemaorg-terms are held out (docs/strategies.md).
 */
export const QUIET_OPTIONS: RateOptions = {
  name: 'quiet',
  summary: 'Poisson rate MAP estimate, starting at the maximum interval (prior: a new URL changes about once a year); interval = 1/λ',
  capacity: 32,
  decay: 1,
  priorChanges: 0.25,
  priorExposureMs: 90 * DAY_MS,
  intervalFactor: 1,
  regularClosedForm: false,
  initialIntervalMs: Number.POSITIVE_INFINITY,
};

export const quiet = rateStrategy(QUIET_OPTIONS);
