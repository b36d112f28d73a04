/** The archive over time: the versioned store indexed from the archive, and the queries the CLI and server run. */
export { openVersionStore, VersionArchive, VERSIONS_FILE, nquadLine, ntripleLine } from '../versions/sqlite-store.ts';
export { LiveIndex, type LiveIndexOptions, type LiveIndexSummary } from '../versions/live-index.ts';
export { catchUpVersions, GAP_TTL_MS, type CatchUpOptions, type CatchUpProgress, type CatchUpResult } from '../versions/catch-up.ts';
export { VersionIndex, openVersionBackend } from '../versions/version-index.ts';
export { PgVersionArchive } from '../versions/pg-store.ts';
export type { VersionBackend, ArchiveReads, HistoryReads, PlannerReads, CountReads, VersionWriter, IndexMaintenance, StoreIdentity, LogGapStore, RowConstants } from '../versions/backend.ts';
export { runQuery, materialise, freeStore, evaluate, evaluateShape, renderTable, termText, formatsFor, mediaTypeOf, NOW, type Dataset } from './sparql.ts';
export { COMMON_PREFIXES } from './prefixes.ts';
export { formatFromParam, acceptOffers, defaultFormat, ALL_FORMATS, formatInfo } from './results/index.ts';
export { analyseQuery, type LexedQuery, lexQuery, type QueryShape } from './sparql-text.ts';
export { queryVersions, queryChanges, answersOverTime } from './evolution.ts';
export { parseTriplePattern } from './pattern.ts';
export { skolemise, ntTerm } from '../rdf/terms.ts';
export type * from '../versions/types.ts';
