import { DAY, WEEK, type SourcePrior, type SourceTally } from './types.ts';

/** A first re-check counts as a probe of how new URLs behave when made within this of the first download. */
export const FIRST_CHECK_PROBE_MS = WEEK;

/** A source's Gamma fit is used once this many of its URLs have been re-downloaded. */
export const MIN_URLS_FOR_FIT = 10;

/** The fitted prior never weighs more than this much exposure (a source whose URLs look alike would otherwise freeze every estimate). */
export const MAX_PRIOR_EXPOSURE_MS = 5 * 365 * DAY;

/**
 * The running tally of one source's (host's, dataset's) re-downloads, which the `source` strategy turns
 * into a prior for each of its URLs (empirical Bayes). The caller records each re-download after it
 * happened, with that URL's totals before it, and hands `prior` to the strategy of the next URL it
 * schedules: only the past is in it. The live scheduler keeps one per host; the lab one per history
 * `source` (src/lab/recrawl/simulate-online.ts).
 *
 * The fit: per URL u, x_u changed re-downloads over an exposure T_u (days). If rates are Gamma(α, β)
 * distributed and each URL Poisson, E[x_u] = m·T_u and Var[x_u] = m·T_u + v·T_u², so by moments
 * m = Σx/ΣT and v = (Σ(x_u − m·T_u)² − Σx)/ΣT_u²; then β = m/v, α = m·β. All sums are additive, so one
 * re-download updates them in O(1). (x counts downloads that saw a change, a lower bound of the changes.)
 */
export class SourcePool {
  readonly prior: SourcePrior = { changes: 0, exposureMs: 0, firstChecks: { downloads: 0, changes: 0, exposureMs: 0 }, probesScheduled: 0 };
  urls = 0;
  private sx = 0;
  private sT = 0;
  private sxx = 0;
  private sTT = 0;
  private sxT = 0;

  /** A new URL's first re-check was scheduled this long after its first download. */
  scheduled(firstIntervalMs: number): void {
    if (firstIntervalMs <= FIRST_CHECK_PROBE_MS) this.prior.probesScheduled++;
  }

  /**
   * One re-download: the interval since the URL's previous download, whether it saw a change, and the
   * URL's changed re-downloads and exposure (ms) before this one (0 and 0 at its first re-check).
   */
  record(intervalMs: number, changed: boolean, urlChanges: number, urlExposureMs: number): void {
    if (urlExposureMs === 0) {
      this.urls++;
      if (intervalMs <= FIRST_CHECK_PROBE_MS) add(this.prior.firstChecks, intervalMs, changed);
    }
    const x0 = urlChanges;
    const t0 = urlExposureMs / DAY;
    const x1 = x0 + (changed ? 1 : 0);
    const t1 = t0 + intervalMs / DAY;
    this.sx += x1 - x0;
    this.sT += t1 - t0;
    this.sxx += x1 * x1 - x0 * x0;
    this.sTT += t1 * t1 - t0 * t0;
    this.sxT += x1 * t1 - x0 * t0;
    this.fit();
  }

  private fit(): void {
    if (this.urls < MIN_URLS_FOR_FIT || this.sT <= 0) return;
    const m = this.sx / this.sT; // changes per day
    const spread = this.sxx - 2 * m * this.sxT + m * m * this.sTT - this.sx;
    const maxBeta = MAX_PRIOR_EXPOSURE_MS / DAY;
    // No spread beyond Poisson noise: the URLs look alike, the prior is as strong as allowed.
    const beta = spread > 0 ? Math.min(maxBeta, (m * this.sTT) / spread) : maxBeta;
    this.prior.changes = m * beta;
    this.prior.exposureMs = beta * DAY;
  }
}

function add(t: SourceTally, intervalMs: number, changed: boolean): void {
  t.downloads++;
  if (changed) t.changes++;
  t.exposureMs += intervalMs;
}
