/** Messages between the engine (server or CLI process) and a query process (worker.ts), over Node's IPC channel. */
import type { EvolutionOptions, QueryForm, QueryOptions, ResultFormat } from '../../versions/types.ts';

/** Which archive to query: the versions.sqlite file or the postgres:// URL of the store (the query process opens it read-only itself). */
export interface ArchiveLocation {
  file: string;
  /**
   * The archive's write generation as the caller saw it (VersionBackend.generation): part of the key
   * under which a query that ran over a limit is refused again, so a changed archive gets a new try.
   */
  generation?: string;
}

export interface ResultHead {
  form: QueryForm;
  format: ResultFormat;
  mediaType: string;
  /** The instant the dataset was materialised at, and how many quads it held. */
  at: number;
  quads: number;
  /** Length of the body to come. */
  bytes: number;
}

/**
 * What a query process computes: runQuery's result, or (`evolution`) Ver(Q) / Change(Q) over `window`
 * (queryVersions / queryChanges), whose body is their JSON.
 */
export interface QueryTask {
  file: string;
  sparql: string;
  opts: QueryOptions;
  evolution?: { kind: 'versions' | 'changes'; window: EvolutionOptions };
}

export type ToUnit =
  | ({ type: 'run'; id: number; resultBytes: number } & QueryTask)
  /** Send the next chunk of job `id`'s body (the reader wants more: flow control). The first comes with the head, unasked. */
  | { type: 'more'; id: number }
  /** The reader went away: drop the rest of the body. */
  | { type: 'cancel'; id: number };

export type FromUnit =
  | { type: 'ready' }
  | ({ type: 'head'; id: number } & ResultHead)
  /** The body ends with the chunk that completes the head's `bytes`. */
  | { type: 'chunk'; id: number; data: Uint8Array }
  /**
   * `user`: the query is wrong (a UserError, e.g. a syntax error); `result`: over resultBytes; `engine`:
   * the query broke Oxigraph (a trap: the process is not reused); `failed`: anything else broke.
   */
  | { type: 'error'; id: number; kind: 'user' | 'result' | 'engine' | 'failed'; message: string; exitCode?: number; bytes?: number };
