// Types of bundle-config.mjs, for test/setup/bundle-sources.ts.
export declare const BUILD_ENTRIES: Record<string, string>;
export declare function bootedEntries(srcRoot?: string): string[];
export declare function bundle(options: {
  sourceRoot: string;
  entries: Record<string, string>;
  outdir: string;
  outExtension?: '.js' | '.mjs';
  logLevel?: 'error' | 'warning';
}): Promise<void>;
