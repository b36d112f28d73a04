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
