/** Queries in throw-away processes under time, memory and result limits (docs/query.md#query-limits). */
export { QueryEngine, locationOf } from './engine.ts';
export { DEFAULT_ENGINE, DEFAULT_LIMITS, QueryLimitError, parseLimits, MIN_MEMORY_BYTES, type EngineOptions, type LimitKind, type QueryLimits } from './limits.ts';
export type { EngineResult } from './unit.ts';
export type { Isolation } from './host.ts';
export type { ArchiveLocation, ResultHead } from './wire.ts';
