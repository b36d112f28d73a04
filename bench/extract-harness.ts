/**
 * Harness for extraction benchmarks: each case measures the project's extractor and the bare
 * library on the same document, interleaved, several times, and reports the median ratio.
 * The HTML engineer's RDFa case can reuse it (import { runExtractBench } and pass their cases).
 */
import { performance } from 'node:perf_hooks';
import { median } from '../src/util/stats.ts';

export interface ExtractBenchCase {
  name: string;
  /** The peer: the library alone. Resolves to the number of quads it produced. */
  bare(): Promise<number>;
  /** The project's extractor on the same document. Resolves to the number of quads. */
  extractor(): Promise<number>;
}

export interface ExtractBenchRow {
  name: string;
  quads: number;
  bareQuadsPerSecond: number;
  extractorQuadsPerSecond: number;
  /** extractor time / bare time (median of the repetitions); < 1.2 meets the 20 % budget. */
  ratio: number;
}

async function timed(run: () => Promise<number>): Promise<{ ms: number; quads: number }> {
  // With --expose-gc, start each run from a collected heap so one side does not pay for the other.
  (globalThis as { gc?: () => void }).gc?.();
  const start = performance.now();
  const quads = await run();
  return { ms: performance.now() - start, quads };
}

export async function runExtractBench(cases: ExtractBenchCase[], repetitions = 5): Promise<ExtractBenchRow[]> {
  const rows: ExtractBenchRow[] = [];
  for (const benchCase of cases) {
    // Warm up both paths (JIT, lazy imports) before measuring.
    await benchCase.bare();
    await benchCase.extractor();
    const bare: number[] = [];
    const extractor: number[] = [];
    let quads = 0;
    for (let i = 0; i < repetitions; i++) {
      // Alternate the order so drift on a shared machine hits both sides alike.
      const first = i % 2 === 0 ? benchCase.bare : benchCase.extractor;
      const second = i % 2 === 0 ? benchCase.extractor : benchCase.bare;
      const a = await timed(first);
      const b = await timed(second);
      const [bareRun, extractorRun] = i % 2 === 0 ? [a, b] : [b, a];
      if (bareRun.quads !== extractorRun.quads) {
        throw new Error(`${benchCase.name}: extractor gave ${extractorRun.quads} quads, bare parser ${bareRun.quads}`);
      }
      quads = bareRun.quads;
      bare.push(bareRun.ms);
      extractor.push(extractorRun.ms);
    }
    const ratios = bare.map((ms, i) => extractor[i] / ms);
    rows.push({
      name: benchCase.name,
      quads,
      bareQuadsPerSecond: Math.round(quads / (median(bare) / 1000)),
      extractorQuadsPerSecond: Math.round(quads / (median(extractor) / 1000)),
      ratio: median(ratios),
    });
  }
  return rows;
}

export function formatExtractBench(title: string, rows: ExtractBenchRow[], repetitions: number): string {
  const lines = [
    `## ${title}`,
    '',
    `Median of ${repetitions} interleaved runs per side, same process, same document.`,
    '',
    '| case | quads | bare parser (quads/s) | extractor (quads/s) | extractor/bare time | within 20 % |',
    '| --- | ---: | ---: | ---: | ---: | :---: |',
    ...rows.map((r) => `| ${r.name} | ${r.quads} | ${r.bareQuadsPerSecond.toLocaleString('en')} | ${r.extractorQuadsPerSecond.toLocaleString('en')} | ${r.ratio.toFixed(3)} | ${r.ratio < 1.2 ? 'yes' : 'no'} |`),
  ];
  return lines.join('\n');
}
