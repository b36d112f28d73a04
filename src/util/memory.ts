import v8 from 'node:v8';

/**
 * How many entries of about `bytesPerEntry` fit in `share` of this isolate's heap limit (what
 * `--max-old-space-size`, or a worker's resourceLimits, allows), clamped to [min, max]. For caches and
 * batches whose size was fixed for the default heap of gigabytes: under a small heap (`serve` with
 * `--max-old-space-size=48`) they shrink with it instead of taking the process down.
 */
export function entriesForHeapShare(bytesPerEntry: number, share: number, min: number, max: number): number {
  const limit = v8.getHeapStatistics().heap_size_limit;
  return Math.max(min, Math.min(max, Math.floor((limit * share) / bytesPerEntry)));
}

/** How much V8 lets a long-running command's heap grow past its live size between full GCs (percent). */
export const STEADY_HEAP_GROWTH_PERCENT = 25;

/**
 * For a command whose live heap stays about the same for hours (a crawl: its frontier, seen set and caches are
 * bounded) but which turns most of what it allocates into garbage after a second or two (each page's response,
 * triples, records). V8 sets the next full GC at up to 4× the live heap when its heap limit is 2 GB or more (the
 * default on any machine of 16 GB), and a high rate of objects promoted to the old generation is what makes it
 * choose that factor: a crawl of 100,000 hosts held 320 MB of heap for 105 MB live (bench/RESULTS.md#frontier-hosts).
 * Growing by a fixed share instead runs full GCs more often, on the same live bytes, and limits nothing: a larger
 * live heap still grows up to the heap limit as before. A user's own `--heap-growing-percent` wins.
 * The V8 flag is process-wide: worker threads' heaps (the WARC writer's) follow it too.
 */
export function steadyHeapGrowth(percent = STEADY_HEAP_GROWTH_PERCENT): void {
  if (process.execArgv.some((a) => /^--heap[-_]growing[-_]percent/.test(a))) return;
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
