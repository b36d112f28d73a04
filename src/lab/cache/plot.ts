/** Miss ratio against cache size (log2 x axis), one curve per policy: the figure of seed 002. */
import { lineChart, toSvg } from '../../plot/svg.ts';
import type { CacheLabResult } from './simulate.ts';

export function missRatioSvg(result: CacheLabResult, title = 'Miss ratio against cache size'): string {
  const ratios = result.curves.flatMap((c) => c.points.map((p) => p.missRatio));
  return toSvg(lineChart({
    title,
    xLabel: 'cache size (entries, log₂ scale)',
    yLabel: 'miss ratio',
    logX: 2,
    yMin: 0,
    yMax: Math.min(1, Math.max(0.05, ...ratios) * 1.05),
    width: 720,
    height: 440,
    // The bounds (Belady's MIN, an infinite cache) are dashed: they are not policies one can run.
    series: result.curves.map((c) => ({
      name: c.policy,
      points: c.points.filter((p) => p.size > 0).map((p): [number, number] => [p.size, p.missRatio]),
      markers: false,
      dash: c.policy === 'infinite' || c.policy === 'min' ? '5 3' : undefined,
    })),
    note: `${result.requests} requests, ${result.distinct} distinct URLs; first requests count as misses`,
  }));
}
