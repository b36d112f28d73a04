/**
 * The history files each of datamonitor's own strategies had its parameters chosen on
 * (docs/strategies.md: poisson's grid on all four shared files, quiet's and source's on tldr-pages and
 * cmake-help; estimator's decay was set looking at the four). A comparison that favours a strategy on a
 * file it was tuned on is in-sample: the report shows it, and judges the claim on the other files only.
 * Seed strategies, nutch (nutch-default.xml's values) and gold are not tuned here. The ChangeLog corpus
 * (bench/data/CHANGELOG-HISTORIES.md) was gathered after every tuning: held out for all of them.
 */
const SHARED = ['tldr-pages', 'python-peps', 'cmake-help', 'schemaorg-terms'] as const;

export const TUNED_ON: Readonly<Record<string, readonly string[]>> = {
  estimator: SHARED,
  poisson: SHARED,
  quiet: ['tldr-pages', 'cmake-help'],
  source: ['tldr-pages', 'cmake-help'],
};

/** Was any of `strategies` tuned on the file named `file`? */
export function inSample(file: string, strategies: readonly string[]): boolean {
  return strategies.some((s) => TUNED_ON[s]?.includes(file) ?? false);
}

/** A file's name as a claim's measured text gives it: marked when `strategies` were tuned on it. */
export function fileLabel(file: string, strategies: readonly string[]): string {
  return inSample(file, strategies) ? `${file} (in-sample)` : file;
}

/** The sentence a measured text ends with when some files were only observed. */
export function inSampleNote(files: readonly string[], strategies: readonly string[]): string {
  const tuned = files.filter((f) => inSample(f, strategies));
  if (tuned.length === 0) return '';
  const judged = files.length - tuned.length;
  return `; judged on the ${judged} file${judged === 1 ? '' : 's'} ${strategies.join('/')} ${strategies.length === 1 ? 'was' : 'were'} not tuned on (${tuned.join(', ')}: in-sample, shown, not judged)`;
}
