/** A benchmark's command line: `--name value` options and bare `--flag`s, after the script's path. */
export const args = process.argv.slice(2);
export const flag = (name: string): boolean => args.includes(name);
export const option = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
/** Every benchmark's short mode (CI, a busy machine). */
export const QUICK = flag('--quick');
