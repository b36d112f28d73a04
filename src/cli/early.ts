/**
 * What the CLI starts before it loads anything else (bin/datamonitor.mjs imports this module first,
 * then main.ts): `datamonitor query …` starts its query thread here, so that the thread's start and
 * its loading Oxigraph run beside the main thread loading the command-line parser and opening the
 * archive, not after them (bench/STARTUP.md). Only the plain form is recognised (`query` first, the
 * default memory limit); any other starts its thread when the command asks, as before.
 */
import { heapMbFor, startQueryThreadEarly } from '../query/engine/host.ts';
import { DEFAULT_LIMITS } from '../query/engine/limits.ts';

/** Flags with which `query` runs no SPARQL on a thread (--list, a --versions triple pattern, help) or on one with other bounds (--max-memory). */
const NO_EARLY_THREAD = /^(--list|--versions|--max-memory|--help|-h)(=|$)/;

/** `args`: the command line after `node datamonitor`. */
export function startEarly(args: string[]): void {
  if (args[0] !== 'query' || args.some((a) => NO_EARLY_THREAD.test(a))) return;
  startQueryThreadEarly(heapMbFor(DEFAULT_LIMITS.memoryBytes));
}
