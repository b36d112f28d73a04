/**
 * Budget-optimal allocation of crawl rates: given each URL's estimated change rate and a number of
 * downloads per cycle, choose per-URL crawl rates ρᵢ (downloads per cycle, Σ ρᵢ = budget) that
 * maximise an objective. Each objective's optimum has the form ρᵢ(μ) with one Lagrange multiplier μ,
 * found by bisection; ρᵢ is clipped to the interval bounds (water-filling).
 *
 * - `captured` (default): expected changes captured per cycle, Σ ρ(1 − e^{−Δ/ρ}) for periodic visits.
 *   Its derivative 1 − (1 + x)e^{−x} with x = Δ/ρ is the same for every page at the optimum, so
 *   ρᵢ ∝ Δᵢ (REFERENCE.md: micro recall is maximised by rates proportional to λ).
 * - `freshness`: binary freshness (Kolobov et al.), ρᵢ = max(0, √(wᵢΔᵢ/μ) − Δᵢ): fast changers may starve.
 * - `harmonic`: harmonic staleness (LambdaCrawl), ρᵢ = (−Δᵢ + √(Δᵢ² + 4wᵢΔᵢ/μ))/2: never zero.
 */
export type BudgetObjective = 'captured' | 'freshness' | 'harmonic';

export interface AllocateOptions {
  objective?: BudgetObjective;
  /** Importance weights wᵢ (default 1). */
  weights?: ArrayLike<number>;
  /** Per-URL rate bounds in downloads per cycle (e.g. cycle / maxInterval … cycle / minInterval). */
  minRate?: number;
  maxRate?: number;
  /** Host of each URL and the most downloads per cycle one host may take (politeness). */
  hosts?: ArrayLike<string>;
  hostCap?: number;
}

export interface Allocation {
  /** Downloads per cycle for each URL. */
  rates: Float64Array;
  /** Σ rates: the budget, less when every URL sits at its maximum or its host cap, more when the minimum rates alone exceed it. */
  total: number;
  /** Expected changes captured per cycle under periodic visits. */
  expectedCaptured: number;
}

/** Changes captured per cycle by periodic visits at rate ρ of a page changing at rate Δ. */
export function capturedPerCycle(delta: number, rho: number): number {
  return rho > 0 && delta > 0 ? rho * -Math.expm1(-delta / rho) : 0;
}

/** Allocates `budget` downloads per cycle over pages with change rates `rates` (changes per cycle). */
export function allocate(rates: ArrayLike<number>, budget: number, opts: AllocateOptions = {}): Allocation {
  const n = rates.length;
  const out = new Float64Array(n);
  if (!(budget > 0) || n === 0) return finish(rates, out);
  const frozen = new Uint8Array(n);
  let remaining = budget;
  // Water-filling over hosts: allocate, cap the hosts above their limit, allocate the rest again.
  for (let round = 0; round <= n; round++) {
    fill(rates, remaining, frozen, out, opts);
    if (!opts.hosts || !(opts.hostCap! > 0)) break;
    const perHost = new Map<string, number>();
    for (let i = 0; i < n; i++) if (!frozen[i]) perHost.set(opts.hosts[i]!, (perHost.get(opts.hosts[i]!) ?? 0) + out[i]!);
    let violated = false;
    for (let i = 0; i < n; i++) {
      if (frozen[i]) continue;
      const sum = perHost.get(opts.hosts[i]!)!;
      if (sum > opts.hostCap! * (1 + 1e-9)) {
        out[i] = (out[i]! * opts.hostCap!) / sum;
        frozen[i] = 1;
        violated = true;
      }
    }
    if (!violated) break;
    remaining = budget;
    for (let i = 0; i < n; i++) if (frozen[i]) remaining -= out[i]!;
    if (remaining <= 0) break;
  }
  return finish(rates, out);
}

function finish(rates: ArrayLike<number>, out: Float64Array): Allocation {
  let total = 0;
  let expectedCaptured = 0;
  for (let i = 0; i < out.length; i++) {
    total += out[i]!;
    expectedCaptured += capturedPerCycle(rates[i]!, out[i]!);
  }
  return { rates: out, total, expectedCaptured };
}

/** Sets out[i] for the pages not frozen so that their sum is `budget` (or as close as the bounds allow). */
function fill(rates: ArrayLike<number>, budget: number, frozen: Uint8Array, out: Float64Array, opts: AllocateOptions): void {
  const lo = opts.minRate ?? 0;
  const hi = opts.maxRate ?? Infinity;
  const objective = opts.objective ?? 'captured';
  const w = (i: number) => (opts.weights ? opts.weights[i]! : 1);
  // ρᵢ as a function of the multiplier m (decreasing in m), before clipping.
  const raw = (i: number, m: number): number => {
    const d = rates[i]!;
    if (!(d > 0)) return 0;
    if (objective === 'captured') return (w(i) * d) / m; // m plays the role of the common x = Δ/ρ
    if (objective === 'freshness') return Math.max(0, Math.sqrt((w(i) * d) / m) - d);
    return (-d + Math.sqrt(d * d + (4 * w(i) * d) / m)) / 2;
  };
  const total = (m: number): number => {
    let s = 0;
    for (let i = 0; i < rates.length; i++) if (!frozen[i]) s += clip(raw(i, m), lo, hi);
    return s;
  };
  let mLo = 1e-12;
  let mHi = 1e12;
  if (total(mLo) <= budget) {
    // Even the largest rates fit: everyone at the maximum.
    for (let i = 0; i < rates.length; i++) if (!frozen[i]) out[i] = clip(raw(i, mLo), lo, hi);
    return;
  }
  for (let k = 0; k < 200 && mHi / mLo > 1 + 1e-7; k++) {
    const mid = Math.sqrt(mLo * mHi);
    if (total(mid) > budget) mLo = mid;
    else mHi = mid;
  }
  for (let i = 0; i < rates.length; i++) if (!frozen[i]) out[i] = clip(raw(i, mHi), lo, hi);
}

function clip(x: number, lo: number, hi: number): number {
  return x < lo ? lo : Math.min(x, hi);
}
