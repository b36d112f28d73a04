import fs from 'node:fs';
import { createRequire } from 'node:module';

let compiled: Promise<WebAssembly.Module> | undefined;

/**
 * Starts compiling Oxigraph's WebAssembly (once per process) and returns the compiled module. A module of
 * its own, without the bindings: src/cli/early.ts starts the compile before anything else is loaded.
 */
export function compileOxigraph(): Promise<WebAssembly.Module> {
  compiled ??= fs.promises.readFile(createRequire(import.meta.url).resolve('oxigraph/web_bg.wasm')).then((bytes) => WebAssembly.compile(bytes));
  return compiled;
}
