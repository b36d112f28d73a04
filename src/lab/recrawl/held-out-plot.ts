import { lineChart, toSvg } from '../../plot/svg.ts';
import type { FoldResult } from './tuning.ts';

/** Held-out recall gap to the best live seed strategy against the budget, one line per held-out file, its 95 % interval dashed. */
export function heldOutFigure(folds: FoldResult[], protocol: string): string {
  const series = folds.flatMap((f) => {
    const g = f.heldOutGaps.filter((x) => x.vsSeedBest);
    const at = (k: 'estimate' | 'low' | 'high') => g.map((x) => [x.multiple, 100 * x.vsSeedBest![k]] as [number, number]);
    return [{ name: f.heldOut, points: at('estimate') }, { name: `${f.heldOut} 95 % low`, points: at('low'), dash: '3,3', markers: false }];
  });
  const xs = folds.flatMap((f) => f.heldOutGaps.map((g) => g.multiple));
  series.push({ name: 'no difference', points: [[Math.min(...xs), 0], [Math.max(...xs), 0]], dash: '1,0', markers: false });
  return toSvg(lineChart({ title: `Held-out files (protocol ${protocol}): datamonitor's tuned rate strategy − best live seed strategy at equal downloads`, xLabel: "download budget (× gold's downloads)", yLabel: 'micro recall difference (points)', width: 760, height: 400, series }));
}
