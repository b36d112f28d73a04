import { UserError } from '../../util/errors.ts';
import { EXIT } from '../../util/exit-codes.ts';
import { formatBytes, formatDuration, parseBytes, parseCount, parseDuration } from '../../util/units.ts';
import { type LexedQuery, lexQuery, nestingDepth } from '../sparql-text.ts';
import type { Isolation } from './host.ts';

/** What one query may use. Every query runs under all of them (docs/query.md#query-limits). */
export interface QueryLimits {
  /** Wall-clock time from the start of its evaluation to its first result byte, ms. */
  timeMs: number;
  /** Resident memory of the query process (Node, Oxigraph's WebAssembly heap and the snapshot), bytes. */
  memoryBytes: number;
  /** Size of the serialised result, bytes. */
  resultBytes: number;
  /**
   * Deepest nesting of brackets ( (, { and [ ) in the query text, checked before the engine sees it:
   * Oxigraph parses and evaluates recursively, and a query nested a few hundred deep overflows the stack
   * its WebAssembly keeps in linear memory, breaking that engine instance (docs/query.md#query-limits).
   */
  maxDepth: number;
  /** Size of the query text, bytes (UTF-8), checked before the engine sees it. */
  queryBytes: number;
}

export interface EngineOptions extends QueryLimits {
  /** Query processes running at once. */
  workers: number;
  /** Queries waiting for a free process; one more is refused (busy) rather than queued without end. */
  queue: number;
  /**
   * How long a query that ran over a limit is refused without being run again (same text, time, graphs,
   * format and archive state): repeating a known-bad query must not take the engine from everyone else.
   */
  refuseAgainMs: number;
  /**
   * Where each query runs (host.ts): a process of its own (the server: nothing a query does reaches its
   * other clients), or a worker thread of the asking process (the CLI: one query, then exit, and a
   * second node start saved); `thread` takes one worker.
   */
  isolation: Isolation;
}

export const DEFAULT_LIMITS: QueryLimits = {
  timeMs: 30_000,
  memoryBytes: 1024 ** 3,
  resultBytes: 64 * 1024 ** 2,
  // Measured on Oxigraph 0.5.11: nested function calls break the engine from ~250 deep, nested groups,
  // OPTIONALs and subqueries from ~1000; real queries nest a few levels.
  maxDepth: 100,
  // Fastify's default body limit, which POST /sparql always had: a VALUES list of ~20,000 IRIs fits.
  queryBytes: 1024 ** 2,
};

export const DEFAULT_ENGINE: EngineOptions = {
  ...DEFAULT_LIMITS,
  workers: 2,
  queue: 16,
  refuseAgainMs: 60_000,
  isolation: 'process',
};

/** Which bound a query met: each has its own HTTP status and advice. */
export type LimitKind = 'time' | 'memory' | 'result' | 'busy' | 'crashed' | 'engine';

/** How the server and the CLI name the flags that raise each bound (for the advice in messages). */
const ADVICE: Record<LimitKind, string> = {
  time: 'make the query more selective (fewer unconnected patterns, a LIMIT, FROM/default-graph-uri for fewer documents) or raise the limit (serve --query-timeout, query --timeout)',
  memory: 'make the query more selective (a product of unconnected patterns grows fast) or raise the limit (serve --query-memory, query --max-memory)',
  result: 'add a LIMIT, select fewer variables or page with LIMIT/OFFSET, or raise the limit (serve --query-max-result, query --max-result)',
  busy: 'try again shortly',
  crashed: 'the query process was replaced; if this query keeps failing, please report it with the query text',
  engine: 'the engine instance that ran it is not used again; write the query with fewer nested or chained parts (thousands of patterns, operators or BINDs in one group break the engine), e.g. a VALUES block instead of a long FILTER chain',
};

/**
 * A query stopped at one of the engine's bounds (or by the engine failing on it). A UserError: the
 * query, not the server, is at fault; it carries its own HTTP status and exit code.
 */
export class QueryLimitError extends UserError {
  readonly httpStatus: number;
  /** Seconds, for a Retry-After header: only when trying again can help. */
  readonly retryAfter?: number;

  /** `detail`: what happened, without the advice. */
  constructor(readonly kind: LimitKind, readonly detail: string, opts: { retryAfter?: number } = {}) {
    super(`${detail}: ${ADVICE[kind]}`, kind === 'crashed' ? EXIT.software : kind === 'busy' ? EXIT.tempFail : EXIT.queryLimit);
    this.name = 'QueryLimitError';
    // 413 says "the answer is too big"; 503 says "not served under this server's limits"; 500 is our
    // fault; 400: this query, whatever the server's load, is beyond what the engine can evaluate.
    this.httpStatus = kind === 'result' ? 413 : kind === 'crashed' ? 500 : kind === 'engine' ? 400 : 503;
    this.retryAfter = opts.retryAfter;
  }
}

export const overTime = (limits: QueryLimits) =>
  new QueryLimitError('time', `the query ran over the time limit of ${formatDuration(limits.timeMs)} and was stopped`);
export const overMemory = (limits: QueryLimits, used?: number) =>
  new QueryLimitError('memory', `the query needed more than the memory limit of ${formatBytes(limits.memoryBytes)}${used ? ` (its process reached ${formatBytes(used)})` : ''} and was stopped`);
export const overResult = (limits: QueryLimits, bytes: number) =>
  new QueryLimitError('result', `the result is ${formatBytes(bytes)}, over the limit of ${formatBytes(limits.resultBytes)}`);

/**
 * What Oxigraph throws when a query breaks its WebAssembly instance: a trap (its stack, kept in linear
 * memory, overflowed into its heap: "memory access out of bounds"; a panic: "unreachable") or V8's stack
 * overflow inside it. The instance is not trusted again: the error says so, and the caller ends the
 * process (worker.ts; the CLI exits). Undefined for anything else (a syntax error is the user's).
 */
export function engineBroken(e: unknown): QueryLimitError | undefined {
  const stack = e instanceof RangeError && /call stack/i.test(e.message);
  if (!(e instanceof WebAssembly.RuntimeError) && !stack) return undefined;
  return new QueryLimitError('engine', `the query engine failed on this query (${(e as Error).message})`);
}

/**
 * A query text against the limits checked before the engine sees it (size, nesting depth): a UserError
 * (HTTP 400, exit 64) naming the limit, its value and the flags that raise it. The text is lexed
 * once, after its size is checked, and its tokens returned for analyseQuery; a caller that has lexed it
 * already (the server, for analyseQuery) gives its tokens.
 */
export function checkQueryText(query: string | LexedQuery, limits: Pick<QueryLimits, 'maxDepth' | 'queryBytes'>): LexedQuery {
  const text = typeof query === 'string' ? query : query.text;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.queryBytes) {
    throw new UserError(`the query is ${formatBytes(bytes)}, over the query size limit of ${formatBytes(limits.queryBytes)}: shorten it (split it into several queries) or raise the limit (serve --query-max-size, query --max-query-size)`);
  }
  const lexed = typeof query === 'string' ? lexQuery(query) : query;
  const depth = nestingDepth(lexed);
  if (depth > limits.maxDepth) {
    throw new UserError(`the query's brackets nest ${depth} deep (counting (, { and [), over the nesting limit of ${limits.maxDepth}: write it with fewer nested groups, OPTIONALs, subqueries or parentheses, or raise the limit (serve --query-max-depth, query --max-depth)`);
  }
  return lexed;
}

/** Below this a query process cannot even load the engine (~100 MiB resident when idle). */
export const MIN_MEMORY_BYTES = 128 * 1024 ** 2;

/**
 * Limits given as command-line text ("30s", "1GiB", "64MiB"), each under the name of its flag for the
 * error message; what is not given stays at its default.
 */
export function parseLimits(
  text: { time?: string; memory?: string; result?: string; depth?: string; size?: string },
  flags: { time: string; memory: string; result: string; depth: string; size: string },
): Partial<QueryLimits> {
  const limits: Partial<QueryLimits> = {};
  if (text.depth !== undefined) {
    limits.maxDepth = parseCount(text.depth, flags.depth);
    if (limits.maxDepth < 1) throw new UserError(`${flags.depth} must be at least 1 (default ${DEFAULT_LIMITS.maxDepth})`);
  }
  if (text.size !== undefined) {
    limits.queryBytes = parseBytes(text.size, flags.size);
    if (limits.queryBytes <= 0) throw new UserError(`${flags.size} must be more than 0 (e.g. 1MiB)`);
  }
  if (text.time !== undefined) {
    limits.timeMs = parseDuration(text.time, flags.time);
    if (limits.timeMs <= 0) throw new UserError(`${flags.time} must be more than 0 (e.g. 30s)`);
  }
  if (text.memory !== undefined) {
    limits.memoryBytes = parseBytes(text.memory, flags.memory);
    if (limits.memoryBytes < MIN_MEMORY_BYTES) throw new UserError(`${flags.memory} ${text.memory} is too small: a query process needs at least ${formatBytes(MIN_MEMORY_BYTES)} (default ${formatBytes(DEFAULT_LIMITS.memoryBytes)})`);
  }
  if (text.result !== undefined) {
    limits.resultBytes = parseBytes(text.result, flags.result);
    if (limits.resultBytes <= 0) throw new UserError(`${flags.result} must be more than 0 (e.g. 64MiB)`);
  }
  return limits;
}
