import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../../util/errors.ts';
import { parseTime, plural } from '../../util/units.ts';
// Module by module, not from query/index.ts, and the heavy ones (Oxigraph, SQLite) when a command needs
// them: --version and --help load none of it, and the SPARQL modules load once the archive is open.
import type { ArchiveReads, HistoryReads, VersionBackend } from '../../versions/backend.ts';
import { renderTable } from '../../query/results/table.ts';
import { ALL_FORMATS } from '../../query/results/formats.ts';
import type { AnswerVersions, Interval, PatternVersions, ResultFormat, SparqlJsonResults } from '../../versions/types.ts';
import type { CatchUpProgress } from '../../versions/catch-up.ts';
import type { CrawlLog } from '../../store/types.ts';
import { ProgressLine, catchUpProgressText } from '../progress.ts';
import { EXIT } from '../../util/exit-codes.ts';
import { VERSIONS_FILE } from '../../util/data-dir.ts';
import { checkQueryText, DEFAULT_LIMITS, parseLimits, type QueryLimits } from '../../query/engine/limits.ts';
import { checkResult, guarded } from '../../query/engine/inline.ts';
import { formatBytes, formatDuration } from '../../util/units.ts';
import { closedAfter } from '../../util/close.ts';
import { summaryOf } from './index.ts';

export interface QueryFlags {
  data: string;
  db?: string;
  file?: string;
  at?: string;
  graph?: string[];
  json?: boolean;
  csv?: boolean;
  tsv?: boolean;
  format?: string;
  versions?: boolean;
  changes?: boolean;
  from?: string;
  to?: string;
  list?: boolean;
  timeout?: string;
  maxMemory?: string;
  maxResult?: string;
  maxDepth?: string;
  maxQuerySize?: string;
}

export function register(program: Command): void {
  program
    .command('query')
    .description(summaryOf('query'))
    .argument('[query]', "a SPARQL query; with --versions also a triple pattern like '<http://x/s> ?p ?o'")
    .option('--data <dir>', 'data directory', 'data')
    .option('--db <url>', 'postgres:// URL of the metadata store (default: <data>/meta.sqlite); the versioned index then lives in that database too, shared by every reader')
    .option('-f, --file <file>', 'read the query from this file')
    .option('--at <time>', 'evaluate over the archive as it was then (ISO 8601); default now')
    .option('--graph <url...>', 'only these documents form the dataset')
    .option('--json', 'SPARQL 1.1 Query Results JSON (or JSON for --versions/--changes/--list)')
    .option('--csv', 'SPARQL 1.1 CSV results')
    .option('--tsv', 'SPARQL 1.1 TSV results')
    .option('--format <format>', 'json | xml | csv | tsv for SELECT/ASK; ntriples | turtle | rdfxml | jsonld | nquads for CONSTRUCT/DESCRIBE')
    .option('--versions', 'Ver: each answer (or triple matching the pattern) with the times it held')
    .option('--changes', 'Change: the times at which the answers changed')
    .option('--from <time>', 'with --versions/--changes: the window starts here; the state then is the baseline')
    .option('--to <time>', 'with --versions/--changes: the window ends here (inclusive)')
    .option('--list', 'list the archived documents and their versions')
    .option('--timeout <duration>', `time limit of the SPARQL query (default ${formatDuration(DEFAULT_LIMITS.timeMs)})`)
    .option('--max-memory <size>', `memory limit of the query's process, WebAssembly included (default ${formatBytes(DEFAULT_LIMITS.memoryBytes)})`)
    .option('--max-result <size>', `largest result written (default ${formatBytes(DEFAULT_LIMITS.resultBytes)})`)
    .option('--max-depth <n>', `deepest nesting of brackets in the query text (default ${DEFAULT_LIMITS.maxDepth})`)
    .option('--max-query-size <size>', `largest query text (default ${formatBytes(DEFAULT_LIMITS.queryBytes)})`)
    .addHelpText('after', `\nA query stopped by a limit (--timeout, --max-memory, --max-result, or one the engine cannot evaluate) exits ${EXIT.queryLimit}; one refused by --max-depth or --max-query-size, before it runs, exits ${EXIT.usage}.`)
    .action(async (query: string | undefined, flags: QueryFlags) => {
      // Ctrl-C interrupts the evaluation (src/query/engine/inline.ts); outside it, Ctrl-C or SIGTERM
      // cancels the command before its query runs; a second signal gets node's default (the process ends there).
      const cancel = new AbortController();
      const onSignal = (signal: NodeJS.Signals) => cancel.abort(new UserError(`the query was cancelled (${signal})`, EXIT.interrupted));
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        process.stdout.write(await queryCommand(query, flags, undefined, cancel.signal));
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}

/** The whole command as a function of its arguments: returns what goes to standard output; notes for the reader go to `note`. */
export async function queryCommand(
  query: string | undefined,
  flags: QueryFlags,
  note: (text: string) => void = (t) => void process.stderr.write(t),
  signal?: AbortSignal,
): Promise<string> {
  const limits = {
    ...DEFAULT_LIMITS,
    ...parseLimits({ time: flags.timeout, memory: flags.maxMemory, result: flags.maxResult, depth: flags.maxDepth, size: flags.maxQuerySize },
      { time: '--timeout', memory: '--max-memory', result: '--max-result', depth: '--max-depth', size: '--max-query-size' }),
  };
  try {
    return await withVersions(flags.data, flags.db, (archive) => answer(archive, limits, query, flags, note, signal));
  } catch (e) {
    throw signal?.aborted && signal.reason instanceof UserError ? signal.reason : e;
  }
}

/**
 * The query is evaluated on this thread under the limits (src/query/engine/inline.ts): this process asks
 * one query and exits, and a query thread of its own was a second isolate and a second load of
 * Oxigraph on the query's critical path (bench/STARTUP.md). A runaway query or Ctrl-C ends the
 * evaluation with a clear message; after that the process exits, as the command does anyway.
 */
async function answer(archive: ArchiveReads, limits: QueryLimits, query: string | undefined, flags: QueryFlags, note: (text: string) => void, signal?: AbortSignal): Promise<string> {
  signal?.throwIfAborted(); // a signal while the index caught up
  if (flags.list) return listDocuments(archive, flags);
  const text = queryText(query, flags);
  const window = { graphs: flags.graph, from: flags.from ? parseTime(flags.from, '--from') : undefined, to: flags.to ? parseTime(flags.to, '--to') : undefined };
  if (flags.versions && flags.changes) throw new UserError('--versions and --changes are two different questions: give one');
  const lexed = !flags.versions || looksLikeSparql(text) ? checkQueryText(text, limits) : undefined;
  const started = Date.now();
  if (flags.changes) {
    const { queryChanges } = await import('../../query/evolution.ts');
    const changes = await guarded(() => queryChanges(archive, text, window), limits, started);
    if (flags.json) return JSON.stringify(changes.map((c) => ({ ...c, time: iso(c.time) })), null, 1) + '\n';
    return changes.map((c) => `${iso(c.time)}  +${c.added} -${c.removed}  (${plural(c.answers, 'answer')})`).join('\n') + `\n${plural(changes.length, 'change')}\n`;
  }
  if (flags.versions) {
    if (looksLikeSparql(text)) {
      const { queryVersions } = await import('../../query/evolution.ts');
      const ver = await guarded(() => queryVersions(archive, text, window), limits, started);
      if (flags.json) return JSON.stringify(ver.map(jsonTimes), null, 1) + '\n';
      return ver.map((v) => `${answerText(v.answer)}\n    ${intervalsText(v.intervals)}`).join('\n') + `\n${plural(ver.length, 'answer')}\n`;
    }
    const { parseTriplePattern } = await import('../../query/pattern.ts'); // N3's parser: only for this question
    const pattern = parseTriplePattern(text);
    if (flags.graph?.length === 1 && !pattern.graph) pattern.graph = { term: `<${flags.graph[0]}>` };
    const ver = archive.patternVersions(pattern).flatMap((v) => inWindow(v, window.from, window.to));
    if (flags.json) return JSON.stringify(ver.map(jsonTimes), null, 1) + '\n';
    const { ntripleLine } = await import('../../versions/sqlite-store.ts');
    return ver.map((v) => `${ntripleLine(v.quad)}  # ${v.quad.graph}${v.quad.namedGraph ? ` (graph ${v.quad.namedGraph})` : ''}\n    ${intervalsText(v.intervals)}  (${plural(v.versions.length, 'version')})`).join('\n')
      + `\n${plural(ver.length, 'triple')}\n`;
  }
  const format = resultFormat(flags);
  const at = flags.at ? parseTime(flags.at, '--at') : undefined;
  if (at !== undefined) {
    // An empty answer before the first capture is right, but it looks like a broken query: say why.
    // The first version only (one probe of the time index): every graph's summary took 8 s and 450 MB at 1 M documents.
    const first = archive.changePoints({ limit: 1 })[0] ?? Infinity;
    if (!(at >= first)) note(`note: --at ${iso(at)} is before the archive's first version${Number.isFinite(first) ? ` (${iso(first)})` : ' (it has none yet)'}: the archive was empty then\n`);
  }
  const { prepareQuery } = await import('../../query/sparql.ts');
  const prepared = await prepareQuery(archive, lexed ?? text, { at, graphs: flags.graph, format: format ?? undefined });
  signal?.throwIfAborted();
  const result = guarded(() => prepared.execute(), limits, started);
  const body = typeof result.body === 'string' ? result.body : Buffer.from(result.body as Uint8Array).toString('utf8');
  checkResult(body, limits);
  if (format || result.form === 'construct' || result.form === 'describe') return ensureNewline(body);
  return renderTable(JSON.parse(body) as SparqlJsonResults);
}

/** Catch-ups shorter than this draw no progress bar. */
const PROGRESS_AFTER_MS = 500;

/**
 * Runs `fn` on the archive's versioned store, brought up to date with the crawl log first (the index is
 * derived from the WARC records; src/versions/catch-up.ts). A versions.sqlite with no crawl log beside it
 * (built through the API) is read as it is.
 */
export async function withVersions<T>(data: string, db: string | undefined, fn: (archive: VersionBackend) => Promise<T> | T): Promise<T> {
  const dir = path.resolve(data);
  const [{ archiveExists, withStore }, { openVersionStore }] = await Promise.all([import('../../store/index.ts'), import('../../versions/sqlite-store.ts')]);
  if (!archiveExists(dir, db)) {
    if (!fs.existsSync(path.join(dir, VERSIONS_FILE))) throw new UserError(`no versioned archive in '${dir}' (no crawl log, no ${VERSIONS_FILE}): crawl into it first, or give --data`, EXIT.noInput);
    const standalone = openVersionStore(dir, { readonly: true });
    return closedAfter(async () => fn(standalone), () => standalone.close());
  }
  return withStore(dir, db, (store) => caughtUp(dir, store, db, fn), { readonly: true });
}

async function caughtUp<T>(dir: string, store: CrawlLog, db: string | undefined, fn: (archive: VersionBackend) => Promise<T> | T): Promise<T> {
  const { VersionIndex, behindWarning } = await import('../../versions/version-index.ts');
  const index = VersionIndex.open(dir, store, db);
  return closedAfter(async () => {
    const progress = new ProgressLine();
    const started = Date.now();
    const result = await index.catchUp((p: CatchUpProgress) => {
      if (Date.now() - started < PROGRESS_AFTER_MS) return;
      progress.update(catchUpProgressText(p, index.catchUpStatus()?.secondsLeft));
    });
    progress.done();
    if (result.behind) process.stderr.write(`warning: ${behindWarning(index.source, result.behind)}\n`);
    // A crawl's live index loading in bulk keeps the read indexes down until the crawl ends (catch-up.ts): said,
    // since a query by predicate or object then scans the versions instead of seeking them.
    const loader = index.archive.liveBulkLoader();
    if (loader !== undefined && loader !== process.pid && index.archive.missingIndexes().length > 0) {
      process.stderr.write(`note: a crawl (process ${loader}) is loading this archive's index in bulk, and its read indexes are down until it ends: a pattern without a subject scans meanwhile (same answers, slower)\n`);
    }
    if (result.failed > 0) {
      process.stderr.write(`${plural(result.failed, 'version')} could not be indexed (the archive keeps them):\n${result.diagnostics.slice(0, 5).map((d) => `  ${d}\n`).join('')}`);
    }
    return await fn(index.archive);
  }, () => index.close());
}


function queryText(query: string | undefined, flags: QueryFlags): string {
  if (query && flags.file) throw new UserError('give the query either as an argument or with --file, not both');
  if (flags.file) {
    try {
      return fs.readFileSync(flags.file, 'utf8');
    } catch (e) {
      throw new UserError(`cannot read the query file '${flags.file}': ${(e as Error).message}`);
    }
  }
  if (!query) throw new UserError("no query: give one, e.g. datamonitor query --data DIR 'SELECT * WHERE { ?s ?p ?o } LIMIT 10'");
  return query;
}

function resultFormat(flags: QueryFlags): ResultFormat | undefined {
  const chosen = [flags.json && 'json', flags.csv && 'csv', flags.tsv && 'tsv', flags.format].filter(Boolean) as string[];
  if (chosen.length > 1) throw new UserError(`one output format at a time (got ${chosen.join(', ')})`);
  const known = ALL_FORMATS;
  if (chosen[0] && !known.includes(chosen[0] as ResultFormat)) throw new UserError(`--format '${chosen[0]}' is not one of ${known.join(', ')}`);
  return chosen[0] as ResultFormat | undefined;
}

function looksLikeSparql(text: string): boolean {
  return /\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b/i.test(text) && /[{]/.test(text);
}

function listDocuments(archive: HistoryReads, flags: QueryFlags): string {
  const graphs = archive.graphs();
  if (flags.json) return JSON.stringify(graphs.map((g) => ({ ...g, firstTime: iso(g.firstTime), lastTime: iso(g.lastTime), versions: archive.versions(g.graph).map((v) => ({ ...v, time: iso(v.time) })) })), null, 1) + '\n';
  return graphs.map((g) => `${g.graph}  ${plural(g.versions, 'version')} ${iso(g.firstTime)} … ${iso(g.lastTime)}  ${g.deleted ? 'deleted' : plural(g.triples, 'triple')}`).join('\n') + `\n${plural(graphs.length, 'document')}\n`;
}

/**
 * A triple's versions restricted to the window: only the intervals that meet it and the versions inside
 * it, or nothing. The intervals keep their real ends: the store knows them, unlike a query's answers.
 */
function inWindow(v: PatternVersions, from?: number, to?: number): PatternVersions[] {
  const meets = (i: Interval) => (to === undefined || i.from <= to) && (from === undefined || i.to === undefined || i.to > from);
  const intervals = v.intervals.filter(meets);
  if (intervals.length === 0) return [];
  const versions = v.versions.filter((t) => (from === undefined || t >= from) && (to === undefined || t <= to));
  return [{ ...v, intervals, versions }];
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** `[start, end)`; an interval cut by the window says so: `[F or earlier, …` and `…, still at T]`. */
function intervalsText(intervals: Interval[]): string {
  return intervals.map((i) => {
    const start = `${iso(i.from)}${i.clippedFrom ? ' or earlier' : ''}`;
    const end = i.to === undefined ? 'now)' : i.clippedTo ? `still at ${iso(i.to)}]` : `${iso(i.to)})`;
    return `[${start}, ${end}`;
  }).join(' ');
}

function jsonTimes<T extends { intervals: Interval[]; versions: number[] }>(v: T): Omit<T, 'intervals' | 'versions'> & { intervals: Array<{ from: string; to?: string; clippedFrom?: true; clippedTo?: true }>; versions: string[] } {
  const intervals = v.intervals.map(({ from, to, ...flags }) => ({ from: iso(from), ...(to === undefined ? {} : { to: iso(to) }), ...flags }));
  return { ...v, intervals, versions: v.versions.map(iso) };
}

function answerText(answer: AnswerVersions['answer']): string {
  if ('triple' in answer && typeof answer.triple === 'string') return answer.triple;
  if ('boolean' in answer && typeof answer.boolean === 'boolean') return String(answer.boolean);
  return Object.entries(answer as Record<string, { type: string; value: unknown }>).map(([k, t]) => `?${k}=${t.type === 'uri' ? `<${t.value}>` : JSON.stringify(t.value)}`).join(' ');
}

function ensureNewline(s: string): string {
  return s.endsWith('\n') || s === '' ? s : s + '\n';
}
