import vm from 'node:vm';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { UserError } from '../../util/errors.ts';
import { EXIT } from '../../util/exit-codes.ts';
import { overMemory, overResult, overTime, type QueryLimits } from './limits.ts';

/**
 * One query evaluated on the asking thread under the three limits: for a process that asks one query
 * and then exits (the CLI). A query thread costs a second isolate booted and Oxigraph loaded in it,
 * about one more node start on a query's critical path (bench/STARTUP.md); here the limits hold by
 * other means than ending a thread:
 * - time: node:vm's watchdog (`timeout`) terminates the evaluation, also inside Oxigraph's WebAssembly;
 * - memory: a companion thread of a few lines (no module of ours loaded, off the critical path on
 *   another core) samples the process's resident memory while a query is evaluated and, past the limit,
 *   interrupts the evaluation with a SIGINT to this process (`breakOnSigint`);
 * - result: measured once serialised, as on a query thread.
 * Ctrl-C interrupts the evaluation the same way; SIGTERM ends the process. Oxigraph's state after an interrupted evaluation is not
 * trusted again: after a limit error the caller exits, as the CLI does. The server keeps its query
 * processes (host.ts): its other clients must not share a query's fate.
 */

/** Slots of the companion's shared state. */
const STATE = 0;
const BASELINE_MB = 1;
const LIMIT_MB = 2;
/** STATE values: no query evaluated; one evaluated (the watchdog may fire); the watchdog fired. */
const IDLE = 0;
const ARMED = 1;
const FIRED = 2;
/** A runaway product grows ~40 MB/s (unit.ts): ~2 MB over the limit between two samples. */
const SAMPLE_MS = 50;

/**
 * The companion thread: CommonJS text run by `eval: true`, so that it loads no module of ours and is up
 * in a few ms of its own core. Two jobs:
 * - the memory watchdog (above);
 * - warming Oxigraph: V8 compiles a WebAssembly function when it is first called (lazy compilation), on
 *   the calling thread, and shares the code with every thread holding the same module. Given the module
 *   the main thread compiled, the companion instantiates it and runs a load and a query of the shapes
 *   src/query/sparql.ts runs (N-Quads with named graphs, a SELECT as SPARQL JSON over the union graph,
 *   a CONSTRUCT), so that the ~40 ms of compiling what a first query calls happen on the other core while
 *   the main thread opens the archive (bench/RESULTS.md#startup). Its small store counts in the resident
 *   memory the watchdog samples only if a query is already being evaluated then.
 */
const COMPANION = `
const { workerData: { shared, sampleMs, glue }, parentPort } = require('node:worker_threads');
setInterval(() => {
  if (Atomics.load(shared, ${STATE}) !== ${ARMED}) return;
  const mb = process.memoryUsage.rss() / 1048576;
  if (mb - Atomics.load(shared, ${BASELINE_MB}) <= Atomics.load(shared, ${LIMIT_MB})) return;
  if (Atomics.compareExchange(shared, ${STATE}, ${ARMED}, ${FIRED}) === ${ARMED}) process.kill(process.pid, 'SIGINT');
}, sampleMs);
parentPort.once('message', (module) => {
  import(require('node:url').pathToFileURL(glue).href).then((ox) => {
    ox.initSync({ module });
    const store = new ox.Store();
    store.load('<http://example.org/s> <http://example.org/p> "o"@en <http://example.org/g> .\\n_:b <http://example.org/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> <http://example.org/g> .\\n', { format: 'application/n-quads' });
    store.query('SELECT * WHERE { ?s ?p ?o FILTER(?o != 2) } ORDER BY ?s LIMIT 10', { results_format: 'application/sparql-results+json', use_default_graph_as_union: true });
    store.query('CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }', { use_default_graph_as_union: true });
    store.free();
  }).catch(() => undefined); // a warm-up that fails costs the query its ~40 ms, nothing else
});
`;

let shared: Int32Array | undefined;

/**
 * Starts the companion thread (once per process; unreferenced: it keeps no process alive), and hands it
 * Oxigraph's module to warm when `oxigraph` resolves. The CLI starts it first thing (src/cli/early.ts),
 * beside the module's compile; guarded() starts it, without the warm-up, when nothing did.
 */
export function startCompanion(oxigraph?: Promise<WebAssembly.Module>): void {
  if (shared) return;
  shared = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
  const glue = createRequire(import.meta.url).resolve('oxigraph/web.js');
  const worker = new Worker(COMPANION, { eval: true, workerData: { shared, sampleMs: SAMPLE_MS, glue }, stdout: false, stderr: false });
  worker.unref();
  oxigraph?.then((module) => worker.postMessage(module), () => undefined);
}

const rssMb = () => Math.floor(process.memoryUsage.rss() / 1024 ** 2);

/**
 * Runs `work` (synchronous: the part of a query that reads the archive, evaluates and serialises) under
 * the time left of `limits.timeMs` since `startedAt` and under the memory limit (what the process's
 * resident memory grows by while it runs). Throws the QueryLimitError a query thread would, or a
 * UserError with exit status 130 when interrupted by Ctrl-C.
 */
export function guarded<T>(work: () => T, limits: QueryLimits, startedAt: number): T {
  startCompanion();
  const state = shared!;
  const left = limits.timeMs - (Date.now() - startedAt);
  if (left <= 0) throw overTime(limits);
  Atomics.store(state, BASELINE_MB, rssMb());
  Atomics.store(state, LIMIT_MB, Math.floor(limits.memoryBytes / 1024 ** 2));
  Atomics.store(state, STATE, ARMED);
  // A SIGTERM handler of JavaScript could run only after the evaluation: without one, node's default ends
  // the process at once (status 143), which is what a supervisor stopping a query expects.
  const onTerm = process.listeners('SIGTERM');
  process.removeAllListeners('SIGTERM');
  let result: T;
  try {
    result = vm.runInContext('work()', vm.createContext({ work }), { timeout: Math.ceil(left), breakOnSigint: true }) as T;
  } catch (e) {
    const fired = Atomics.exchange(state, STATE, IDLE) === FIRED;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw overTime(limits);
    if (code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED') {
      throw fired ? overMemory(limits, (rssMb() - Atomics.load(state, BASELINE_MB)) * 1024 ** 2) : new UserError('the query was cancelled (SIGINT)', EXIT.interrupted);
    }
    throw e;
  } finally {
    for (const listener of onTerm) process.on('SIGTERM', listener);
  }
  if (Atomics.exchange(state, STATE, IDLE) === FIRED) {
    // Over the limit as it ended: the answer is refused all the same, and the SIGINT the companion sent,
    // which may still be on its way, must not end the process or read as a Ctrl-C.
    const swallow = () => undefined;
    process.once('SIGINT', swallow);
    setTimeout(() => process.off('SIGINT', swallow), 1000).unref();
    throw overMemory(limits);
  }
  return result;
}

/** A result's serialised body against the result limit (the query thread's check, unit.ts). */
export function checkResult(body: string | Uint8Array, limits: QueryLimits): void {
  const bytes = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
  if (bytes > limits.resultBytes) throw overResult(limits, bytes);
}
