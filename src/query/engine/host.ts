import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { siblingModule } from '../../util/sibling.ts';
import { TsThread, bootable } from '../../util/ts-thread.ts';
import { residentBytes } from './memory.ts';
import type { FromUnit, ToUnit } from './wire.ts';

/**
 * Where a query runs (EngineOptions.isolation):
 * - `process`: a child process of its own. Nothing a query does (a WebAssembly panic, a runaway
 *   allocation, the OS killing it) reaches the process that asked: what a server needs, whose other
 *   clients must keep being answered.
 * - `thread`: a worker thread of the asking process. It starts without a second node; the limits hold the same way
 *   (worker.terminate() stops even a query inside Oxigraph's WebAssembly, V8's resourceLimits bound its
 *   heap, the process's resident memory is watched), but a thread shares its process's fate in what
 *   no limit catches (the OS killing the process on memory pressure). For a process that asks one query
 *   and then exits, that is no loss.
 */
export type Isolation = 'process' | 'thread';

/** What a host tells its unit. `exit`: the process or thread is gone (`error`: a thread's uncaught error, e.g. V8's heap limit). */
export interface HostEvents {
  message(m: FromUnit): void;
  stderr(text: string): void;
  exit(error?: Error): void;
}

/** A query process or thread, as unit.ts drives it. */
export interface UnitHost {
  /** The process id (a child process); undefined for a thread. */
  readonly pid: number | undefined;
  /** Whether it has already ended. */
  readonly ended: boolean;
  send(m: ToUnit, onFailed: () => void): void;
  /** Keeps the asking process alive while a job runs / lets it exit while idle. */
  ref(): void;
  unref(): void;
  /** Ends it at once, whatever it is doing. */
  kill(): void;
  /** Resident memory the query uses, bytes (undefined when it cannot be read). */
  residentBytes(): Promise<number | undefined>;
}

/**
 * The query entry: worker.ts (run through tsx's loader from src/); in dist/, the build's one-file
 * bundle of worker.js and what it imports (scripts/bundle.mjs: a thread or process then loads a few
 * files, not dozens of modules: bench/STARTUP.md), or worker.js itself in a dist/ built by tsc alone.
 */
const WORKER = queryEntry(siblingModule(import.meta.url, './worker.ts'));

function queryEntry(module: URL): URL {
  if (/\.[cm]?ts$/.test(module.pathname)) return module;
  const bundled = new URL('../../bundle/query-worker.js', module);
  return existsSync(bundled) ? bundled : module;
}

export function startHost(isolation: Isolation, heapMb: number, events: HostEvents): UnitHost {
  return isolation === 'thread' ? new ThreadHost(heapMb, events) : new ProcessHost(heapMb, events);
}

/** The JS heap bound of a query's process or thread for a memory limit (the limit itself is watched on resident memory). */
export function heapMbFor(memoryBytes: number): number {
  return Math.max(64, Math.floor(memoryBytes / 1024 ** 2));
}

function newQueryThread(heapMb: number): Worker {
  return new TsThread(WORKER, {}, { resourceLimits: { maxOldGenerationSizeMb: heapMb }, stdout: true, stderr: true }).worker;
}

class ProcessHost implements UnitHost {
  private readonly child: ChildProcess;

  constructor(heapMb: number, events: HostEvents) {
    const boot = bootable(WORKER);
    const [entry, args] = /\.[cm]?ts$/.test(boot.pathname)
      ? [fileURLToPath(new URL('../../../bin/run-ts.mjs', import.meta.url)), [fileURLToPath(boot)]]
      : [fileURLToPath(boot), []];
    this.child = fork(entry, args, {
      serialization: 'advanced', // Uint8Array chunks as bytes, not JSON
      // The JS heap gets the same bound; the whole process (WebAssembly included) is measured by the unit.
      execArgv: [`--max-old-space-size=${heapMb}`],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (d: string) => events.stderr(d));
    this.child.on('message', (m: FromUnit) => events.message(m));
    this.child.on('error', () => events.exit()); // fork failed, or a message could not be sent
    this.child.on('exit', () => events.exit());
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get ended(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  send(m: ToUnit, onFailed: () => void): void {
    if (!this.child.connected) return;
    this.child.send(m, (err) => {
      if (err) onFailed();
    });
  }

  ref(): void {
    this.child.ref();
    (this.child.channel as unknown as { ref?: () => void } | undefined)?.ref?.();
  }

  unref(): void {
    this.child.unref();
    (this.child.stderr as unknown as { unref?: () => void }).unref?.();
    (this.child.channel as unknown as { unref?: () => void } | undefined)?.unref?.();
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  residentBytes(): Promise<number | undefined> {
    return residentBytes(this.child.pid!);
  }
}

class ThreadHost implements UnitHost {
  private readonly worker: Worker;
  /**
   * The process's resident memory before the thread started: what the thread adds to it is what its
   * query uses (node itself is already there, unlike in a query process of its own, so a limit holds a
   * thread to at least as much as a process).
   */
  private readonly baseline: number;
  private gone = false;
  private error?: Error;

  constructor(heapMb: number, events: HostEvents) {
    this.baseline = process.memoryUsage.rss();
    this.worker = newQueryThread(heapMb);
    this.worker.stdout.resume(); // nothing written there is wanted, and unread it would pile up
    this.worker.stderr.setEncoding('utf8');
    this.worker.stderr.on('data', (d: string) => events.stderr(d));
    this.worker.on('message', (m: FromUnit) => events.message(m));
    this.worker.on('error', (e) => (this.error = e)); // comes before 'exit'
    this.worker.on('exit', () => {
      this.gone = true;
      events.exit(this.error);
    });
  }

  readonly pid = undefined;

  get ended(): boolean {
    return this.gone;
  }

  send(m: ToUnit, onFailed: () => void): void {
    if (this.gone) return;
    try {
      this.worker.postMessage(m);
    } catch {
      onFailed();
    }
  }

  ref(): void {
    this.worker.ref();
  }

  unref(): void {
    this.worker.unref();
  }

  kill(): void {
    void this.worker.terminate();
  }

  residentBytes(): Promise<number | undefined> {
    return Promise.resolve(Math.max(0, process.memoryUsage.rss() - this.baseline));
  }
}
