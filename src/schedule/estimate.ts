/**
 * Change-rate estimators for a page whose changes form a Poisson process (Cho & Garcia-Molina,
 * "Estimating frequency of change", ACM TOIT 2003). A download only says whether at least one change
 * happened since the previous one, so the naive X/T is biased low.
 */

/** Regular visits every `intervalMs`, `n` visits, `x` of them saw a change: λ̂ = −ln((n − X + 0.5)/(n + 0.5)) / I (per ms). */
export function regularRate(n: number, x: number, intervalMs: number): number {
  return -Math.log((n - x + 0.5) / (n + 0.5)) / intervalMs;
}

/**
 * A window of observations: intervals and whether each saw a change, with a weight each (decay of
 * old observations). Plain arrays so that strategy states can hold them; only the first `count` used.
 */
export interface ObservationWindow {
  intervals: ArrayLike<number>;
  changed: ArrayLike<number>;
  weights: ArrayLike<number>;
  count: number;
}

/**
 * Maximum-likelihood rate for irregular intervals: solves Σ_changed w·t/(e^{λt} − 1) + prior = Σ_unchanged w·t
 * by bisection on log λ (the left side decreases in λ). No change gives the floor, all changed the cap:
 * the MLE is 0 or ∞ there. `priorChanges` adds a Gamma(1 + a, ·)-style pull (a/λ on the left side) that
 * keeps the estimate finite and moves it smoothly; 0 gives the plain MLE.
 */
export function mleRate(w: ObservationWindow, floor: number, cap: number, priorChanges = 0, priorExposureMs = 0): number {
  let unchangedTime = priorExposureMs;
  let anyChanged = priorChanges > 0;
  for (let i = 0; i < w.count; i++) {
    if (w.changed[i]) anyChanged = true;
    else unchangedTime += w.weights[i]! * w.intervals[i]!;
  }
  if (!anyChanged) return floor;
  const excess = (lambda: number): number => {
    let s = priorChanges / lambda - unchangedTime;
    for (let i = 0; i < w.count; i++) {
      if (!w.changed[i]) continue;
      const t = w.intervals[i]!;
      s += (w.weights[i]! * t) / Math.expm1(lambda * t);
    }
    return s;
  };
  if (excess(cap) >= 0) return cap;
  if (excess(floor) <= 0) return floor;
  let lo = Math.log(floor);
  let hi = Math.log(cap);
  // 1e-3 relative precision is far below the noise of any estimate from a few dozen observations.
  while (hi - lo > 1e-3) {
    const mid = (lo + hi) / 2;
    if (excess(Math.exp(mid)) > 0) lo = mid;
    else hi = mid;
  }
  return Math.exp((lo + hi) / 2);
}

/** True when every used interval equals the first (within 1 s): the regular-interval estimator applies. */
export function isRegular(w: ObservationWindow): boolean {
  for (let i = 1; i < w.count; i++) if (Math.abs(w.intervals[i]! - w.intervals[0]!) > 1000) return false;
  return w.count > 0;
}
