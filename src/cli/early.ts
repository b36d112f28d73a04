/**
 * What the CLI starts before it loads anything else (bin/datamonitor.mjs imports this module first,
 * then main.ts): `datamonitor query …` starts compiling Oxigraph's WebAssembly (on V8's background
 * threads) and the query's companion thread (src/query/engine/inline.ts: its memory watchdog, and the
 * warm-up that compiles on the other core the WebAssembly functions a first query calls), so that both
 * are done, off the main thread, by the time the archive is open (bench/RESULTS.md#startup).
 */
import { startCompanion } from '../query/engine/inline.ts';
import { compileOxigraph } from '../query/oxigraph-wasm.ts';

/** `args`: the command line after `node datamonitor`. */
export function startEarly(args: string[]): void {
  if (args[0] !== 'query' || args.some((a) => /^(--list|--help|-h)$/.test(a))) return;
  const oxigraph = compileOxigraph();
  oxigraph.catch(() => undefined); // a failure is reported where the module is needed
  startCompanion(oxigraph);
}
