/**
 * Oxigraph for this process: its web build, whose WebAssembly module can be compiled asynchronously and
 * handed over, instead of the node build, which reads and compiles its 4 MB module synchronously on the
 * importing thread. V8 compiles asynchronously on background threads, so the CLI starts the compile first
 * thing (src/cli/early.ts) and a query loads its SPARQL modules once the archive is open, by which time
 * the module is ready or nearly (bench/RESULTS.md#startup). The same bindings and module bytes as the
 * node build (one package). Every module of ours imports Oxigraph from here: one instance per process.
 */
import { initSync } from 'oxigraph/web.js';
import { compileOxigraph } from './oxigraph-wasm.ts';

export * from 'oxigraph/web.js';

initSync({ module: await compileOxigraph() });

/**
 * Frees an Oxigraph store's WebAssembly memory now. Left to the garbage collector, dropped stores pile up
 * in the WASM heap, which never shrinks, and make the next load several times slower (measured: ~1 s
 * instead of ~0.2 s); a store per chunk of terms left to it grew the count planner's process by 300 MB at
 * 100,000 documents (plan/count.ts).
 */
export function freeStore(store: import('oxigraph/web.js').Store): void {
  (store as unknown as { free?: () => void }).free?.();
}
