/**
 * datamonitor's public API: `import { crawl, openStore, runQuery } from 'datamonitor'`.
 *
 * What the CLI does, as functions: capture (crawl, re-crawl cycles, WARC import), the metadata
 * store, the versioned archive and its queries, export and fixity checks, the server, and the labs'
 * entry points. Names are listed one by one, not `export *`: this file is the promise the package
 * keeps, and a module's other exports are free to change. Narrower entries for smaller imports:
 * `datamonitor/query`, `datamonitor/server`, `datamonitor/store`, `datamonitor/seen`,
 * `datamonitor/lab/recrawl`, `datamonitor/lab/cache`, `datamonitor/lab/crawltime` (package.json
 * `exports`).
 */

// ---- Capture ------------------------------------------------------------------------------
export { crawl, Crawl, type CrawlOptions, type CrawlSummary, type CrawlProgress, type CapturedDocument } from './crawler/crawl.ts';
export { REASONS, REASON_NAMES, isReason, type Reason } from './vocabulary/reasons.ts';
export { importWarcs, type ImportSummary } from './crawler/import-warc.ts';
export { runCycle, DEFAULT_STRATEGY, type CycleOptions, type CycleResult } from './recrawl/cycle.ts';
export { strategies, getStrategy, SEED_STRATEGIES } from './schedule/strategies/index.ts';
export { VERSION, buildUserAgent } from './fetch/accept.ts';

// ---- The metadata store (crawl log, documents, schedule): SQLite in <dataDir>, or PostgreSQL --
export { openStore, withStore, archiveExists, ReadOnlyStoreError, type OpenStoreOptions, type MetadataStore } from './store/index.ts';
export type { CrawlLogEntry, DocumentRow, HostRow, CycleRow, ChangeState, DocumentState, DocumentStore, CrawlLog, ReadModel, HostStore, CycleStore, StoreLifecycle } from './store/types.ts';

// ---- The versioned archive and its queries -------------------------------------------------
export {
  VersionIndex, VersionArchive, PgVersionArchive, openVersionStore, openVersionBackend, catchUpVersions, VERSIONS_FILE,
  runQuery, queryVersions, queryChanges, answersOverTime, parseTriplePattern, renderTable, NOW,
  type CatchUpProgress, type CatchUpResult, type VersionBackend,
} from './query/index.ts';
export type {
  QueryOptions, QueryResult, ResultFormat, QueryForm, SparqlJsonResults, SparqlJsonTerm, AnswerVersions, AnswerChange,
  EvolutionOptions, TriplePattern, PatternVersions, Interval, VersionInfo, QuadRow, Delta, ArchiveStats, VersionedGraphStore,
} from './versions/types.ts';

// ---- Export, replay and fixity of the WARC archive ------------------------------------------
export { exportArchive, type ExportFormat } from './archive/export.ts';
export { verifyArchive, type VerifyProblem, type VerifyReport, type ProblemKind } from './archive/verify.ts';
export { latestResponses, replayDocument, type ReplayedDocument } from './archive/replay.ts';
export { listWarcFiles } from './archive/warc-files.ts';

// ---- The server: SPARQL protocol, Memento, replay, CDXJ, dashboard ---------------------------
export { buildServer, startServer, type ServerOptions } from './server/index.ts';

// ---- The labs --------------------------------------------------------------------------------
export { runRecrawlLab, runRecrawlLabOnFiles, formatRecrawlLab, recrawlLabSvg, readHistories, type RecrawlLabOptions, type RecrawlLabResult, type HistorySet } from './lab/recrawl/index.ts';
export { runCacheLab, formatCacheTable, readTrace, type CacheLabOptions, type CacheLabResult } from './lab/cache/index.ts';
export { runCrawlTimeLab, formatCrawlTimeReport, crawlTimePlot, type CrawlTimeLabOptions, type CrawlTimeLabResult } from './lab/crawltime/index.ts';
export { runErdosLab, formatErdosLab, erdosLabPlot, FOLLOW_QUERY as ERDOS_FOLLOW_QUERY, type ErdosLabOptions, type ErdosLabResult } from './lab/erdos/index.ts';
export { runOrderingLab, formatOrderingLab, orderingLabChart, MODEL_NAMES, type OrderingLabOptions, type OrderingLabResult } from './lab/ordering/run.ts';
export { loadSiteGraph, type SiteLoadOptions } from './lab/ordering/site-loader.ts';
export { loadArchiveGraph } from './lab/ordering/archive-graph.ts';
export type { RepositoryGraph } from './lab/ordering/graph.ts';

// ---- Errors ----------------------------------------------------------------------------------
export { UserError } from './util/errors.ts';
export { EXIT, type ExitCode } from './util/exit-codes.ts';
