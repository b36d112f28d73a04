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
