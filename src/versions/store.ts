import type { Quad } from '@rdfjs/types';
import { iriTerm, skolemise, type NtQuad } from '../rdf/terms.ts';
import { ALTERNATE_OF } from '../archive/namespace.ts';
import { entriesForHeapShare } from '../util/memory.ts';
import { inEngineForm } from './engine-form.ts';
import { COUNT_TOTALS_KEY, sumRows, totalChange } from './count-totals.ts';
import { IN_DOCUMENT_TERM, bornBySql, countSql, type RowBound, firstByRowId, limitClause, patternConditions, type ChangeKey, type ChangeRow, type CountRequest, type IndexCompaction, type LogGapStore, type RowConstants, type VersionBackend } from './backend.ts';
import type { TermCheckMemo } from './term-check-memo.ts';
import { TermIds } from './term-ids.ts';
import { inDocumentSql, tripleCountSql, tripleRowsSql, type FragmentTables, type TripleRow, type TriplesPage } from './fragment-sql.ts';
import type { ArchiveStats, Delta, GraphSummary, Interval, PatternVersions, QuadRow, TriplePattern, VersionInfo, VersionKind } from './types.ts';
import { OPEN, checkGraph, checkTime, intervalsByQuad, toQuadRow, tripleHash, tripleLineHash, type RawRow } from './rows.ts';
import type { Generation, PendingWrites, Statement, TransactionState, VersionDialect } from './dialect.ts';

/** Term ids cached: about 100 bytes each (the term's text and the map's slot), at most a sixteenth of the heap. */
const TERM_CACHE_ENTRIES = entriesForHeapShare(128, 1 / 16, 2_000, 200_000);
/** Rows read per statement by the paged reads of a remote store (snapshot, rows by id, one-statement queries). */
const PAGE = 20_000;
const INDEXED_LOG_ID = 'indexed_log_id';
/** Versions on either side of T a fragment's page reads for its bound (backend.ts bornBySql): a page takes a fraction of a millisecond. */
const FRAGMENT_BORN_BY = 5_000;
const ALTERNATE_OF_NT = `<${ALTERNATE_OF}>`;
/** A version row that changed its document: a deletion, or triples added or removed (a capture of the same graph adds none). */
const CHANGED = `(v.kind = 'deleted' OR v.added > 0 OR v.removed > 0)`;

interface OpenRow { id: number; from: number }
interface GraphState { last: { time: number; kind: VersionKind; triples: number } | undefined; open: Map<number, OpenRow> }
/** A row to insert, its terms as N-Triples: ids are looked up or handed out once per flush, for every row at once. */
interface PendingQuad { id: number; g: string; s: string; p: string; o: string; h: number; from: number; to: number; ng: string | null }
interface Transaction extends TransactionState {
  /** By the document's N-Triples IRI. */
  graphs: Map<string, GraphState>;
  inserts: Map<number, PendingQuad>;
  closes: Map<number, { g: string; to: number }>;
  versions: Map<string, [g: string, time: number, kind: VersionKind, added: number, removed: number, triples: number, firstRow: number | null, lastRow: number | null]>;
  /** How this transaction's versions change the rows valid from each instant on (count-totals.ts). */
  totals: Map<number, number>;
}

type Row = RawRow & { rid: number };

/** A selective query's reads made at once (VersionStore.readAheadNow); a part read is unset. */
interface ReadAhead {
  generation: string | undefined;
  /** countMatching's answers, by the pattern's readAheadKey: exact up to PAGE, PAGE + 1 for more. */
  counts: Map<string, number>;
  /** rowsMatchingAt's, when the counts allowed them. */
  rows: Row[] | undefined;
  rowsKey: string;
}

/** What a read-ahead part answers for: the instant (none for a count), the patterns, the graphs. */
function readAheadKey(at: number | undefined, patterns: RowConstants[], graphs?: string[]): string {
  return JSON.stringify([at ?? null, patterns.map((p) => [p.s ?? null, p.p ?? null, p.o ?? null, p.graph ?? null]), graphs ?? null]);
}

/**
 * The versioned archive of every document graph, over SQLite or PostgreSQL (dialect.ts): BEAR's
 * timestamp-based storage (TB). Each triple of a graph is one row per validity interval [from_t, to_t)
 * over a term dictionary, so a new version costs only its delta, any instant is one range scan, and a
 * version query reads a triple's intervals directly. Both databases hold the same rows with the same ids
 * (a new row takes the largest id + 1, as SQLite's rowid does), so both load a query's rows in the same
 * order and answer with the same bytes.
 *
 * Writes happen in a transaction holding the database's writer lock: what a version adds, closes and
 * counts is computed against an in-memory view of the documents it touches, and written in bulk; a remote
 * store writes a whole transaction at its end (a few round trips for a batch of 500 log rows), a local one
 * each version as it is made.
 */
export class VersionStore implements VersionBackend {
  readonly kind: 'sqlite' | 'postgres';
  readonly file: string;
  readonly logGaps: LogGapStore;
  readonly commitsBehind?: boolean;
  readonly prefetch?: (graphs: string[]) => void;
  readonly rowsMatchingAt?: (at: number, patterns: RowConstants[], estimate: number, opts?: { graphs?: string[] }) => Iterable<[rowid: number, row: QuadRow]>;
  readonly readAhead?: (at: number, patterns: RowConstants[], opts: { graphs?: string[]; rowsUpTo: number }) => Promise<void>;
  readonly mayHoldAlternates?: () => boolean;
  readonly oddLiteralTerms?: (after: number, limit: number, upTo: number) => Array<{ id: number; nt: string }>;
  readonly lastTermId?: () => number;
  protected readonly d: VersionDialect;
  private readonly t: { terms: string; versions: string; quads: string; meta: string; sums: string };
  private readonly termIds = new TermIds(TERM_CACHE_ENTRIES);
  private tx: Transaction | undefined;
  /** Versions and clears this process wrote: a local store's generation counts them beside the database's. */
  private writes = 0;
  private alternatesSeen: boolean | undefined;
  /**
   * The next row id read with the generation, kept until the event loop turns (or this store commits):
   * a query reads the generation (its cache key), then the planner asks for the archive's size, which
   * needs no round trip of its own. Only an estimate: a write since then makes it a little low.
   */
  private nextRowSeen: number | undefined;
  private batchTimer: NodeJS.Timeout | undefined;
  /** What readAhead read, kept until the event loop turns (or this store writes); each part is taken once. */
  private ahead: ReadAhead | undefined;

  constructor(dialect: VersionDialect) {
    this.d = dialect;
    this.kind = dialect.kind;
    this.file = dialect.file;
    this.logGaps = dialect.logGaps;
    const p = dialect.prefix;
    this.t = { terms: `${p}terms`, versions: `${p}versions`, quads: `${p}quads`, meta: `${p}meta`, sums: `${p}count_sums` };
    if (dialect.remote) {
      this.commitsBehind = true;
      this.prefetch = (graphs) => this.readStates(graphs);
      this.rowsMatchingAt = (at, patterns, estimate, opts) => this.rowsMatching(at, patterns, estimate, opts);
      this.mayHoldAlternates = () => this.alternatesSeen ?? true;
      if (dialect.readAhead) this.readAhead = (at, patterns, opts) => this.readAheadNow(at, patterns, opts);
    } else {
      this.oddLiteralTerms = (after, limit, upTo) => this.oddLiterals(after, limit, upTo);
      this.lastTermId = () => this.d.get<{ n: number | null }>(`SELECT max(id) AS n FROM ${this.t.terms}`)?.n ?? 0;
    }
  }

  private get cols(): string {
    return `tg.nt AS g, ts.nt AS s, tp.nt AS p, t_o.nt AS o, tn.nt AS ng`;
  }

  /**
   * `g` is the document (the unit of versioning), `ng` the quad's own graph inside the document's dataset
   * (a term id; NULL for the document's default graph).
   */
  private get joins(): string {
    const terms = this.t.terms;
    return `JOIN ${terms} tg ON tg.id = q.g JOIN ${terms} ts ON ts.id = q.s JOIN ${terms} tp ON tp.id = q.p JOIN ${terms} t_o ON t_o.id = q.o LEFT JOIN ${terms} tn ON tn.id = ${this.d.ng}`;
  }

  /** A quad's identity across its intervals (document, terms, named graph). */
  private get rowKey(): string {
    return `q.g || ' ' || q.s || ' ' || q.p || ' ' || q.o || ' ' || coalesce(${this.d.ng}, 0)`;
  }

  /** Changes whenever this or another process writes: a cache key for materialised snapshots. */
  get generation(): string {
    const ahead = this.ahead?.generation;
    if (ahead !== undefined) {
      this.ahead!.generation = undefined;
      return ahead;
    }
    return this.tookGeneration(this.d.generation(this.writes));
  }

  /** The generation as read, with what was read beside it; returns its key. */
  private tookGeneration(g: Generation): string {
    this.alternatesSeen = g.alternates;
    // Another process wrote since: if it rebuilt the index, the ids of the cached terms are stale.
    if (g.changed && !this.tx) this.termIds.clear();
    if (g.nextRow !== undefined) {
      const nextRow = g.nextRow;
      this.nextRowSeen = nextRow;
      setImmediate(() => {
        if (this.nextRowSeen === nextRow) this.nextRowSeen = undefined;
      }).unref();
    }
    return g.key;
  }

  // ---- writes -------------------------------------------------------------------------------------

  async putVersion(graph: string, time: number, quads: Iterable<Quad>): Promise<{ added: number; removed: number }> {
    if (this.d.remote || this.tx) return this.writeTransaction(() => this.putVersionNow(graph, time, quads));
    this.batch();
    return this.putVersionNow(graph, time, quads);
  }

  async deleteGraph(graph: string, time: number): Promise<void> {
    if (this.d.remote || this.tx) {
      this.writeTransaction(() => this.deleteGraphNow(graph, time));
      return;
    }
    this.batch();
    this.deleteGraphNow(graph, time);
  }

  /**
   * A local store groups putVersion calls into one transaction committed every 100 ms: a commit per
   * document cost more than the delta itself (measured in the crawl benchmark).
   */
  private batch(): void {
    if (this.tx) return;
    this.open();
    this.batchTimer = setTimeout(() => this.flush(), 100);
    this.batchTimer.unref?.();
  }

  /** Commits the batch of putVersion calls still open: another connection (a query process) sees them then. */
  flush(): void {
    if (!this.batchTimer) return;
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    this.finish(() => undefined);
  }

  putVersionNow(graph: string, time: number, quads: Iterable<Quad>): { added: number; removed: number } {
    return this.putTermsNow(graph, time, skolemise(graph, quads));
  }

  /** putVersionNow of a version already in the store's terms (skolemise's: the catch-up's reading thread makes them). */
  putTermsNow(graph: string, time: number, terms: NtQuad[]): { added: number; removed: number } {
    checkGraph(graph);
    const t = checkTime(time, `putVersion(${graph})`);
    return this.inTransaction(() => this.applyVersion(graph, t, terms));
  }

  /**
   * deleteGraph inside the caller's transaction; true if it logged a deletion. A graph the store never
   * saw, or already deleted, is no event (and costs no new term).
   */
  deleteGraphNow(graph: string, time: number): boolean {
    checkGraph(graph);
    const t = checkTime(time, `deleteGraph(${graph})`);
    return this.inTransaction(() => {
      const last = this.graphState(iriTerm(graph)).last;
      if (!last || last.kind === 'deleted') return false;
      this.applyVersion(graph, t, undefined);
      return true;
    });
  }

  /**
   * A write outside the caller's transaction gets one of its own. Inside one, a version that throws (a
   * WARC record that cannot be read, a time going back) does so before it changes anything.
   */
  private inTransaction<T>(fn: () => T): T {
    return this.tx ? fn() : this.writeTransaction(fn);
  }

  /**
   * Runs `fn` holding the store's write lock (a second writer waits for it, instead of failing half-way),
   * commits if it returns, rolls back if it throws. Whatever `fn` reads inside is what no other process
   * can change before the commit.
   */
  writeTransaction<T>(fn: () => T): T {
    this.flush(); // a batch of putVersion calls still open is committed first
    if (this.tx) return fn();
    this.open();
    return this.finish(fn);
  }

  private open(): void {
    if (!this.d.writable) throw new Error('the versioned store was opened read-only');
    const { changed, ...state } = this.d.begin();
    // Another process wrote since: term ids it removed (a rebuild) must not come from our cache.
    if (changed) this.termIds.clear();
    else this.termIds.trim();
    this.nextRowSeen = undefined;
    this.ahead = undefined;
    this.tx = { ...state, graphs: new Map(), inserts: new Map(), closes: new Map(), versions: new Map(), totals: new Map() };
  }

  private finish<T>(fn: () => T): T {
    try {
      const out = fn();
      const tx = this.tx!;
      this.d.commit(this.pendingStatements(), tx);
      this.nextRowSeen = undefined;
      this.ahead = undefined;
      return out;
    } catch (e) {
      // Ids of terms this transaction made are not in the database: not in the cache either.
      this.termIds.clear();
      this.d.rollback();
      throw e;
    } finally {
      this.tx = undefined;
    }
  }

  /** Writes what the transaction holds in memory (the count totals' changes only if `totals`); it stays open. */
  private flushPending(totals = true): void {
    const statements = this.pendingStatements(totals);
    if (statements.length > 0) this.d.run(statements);
  }

  /** The bulk writes of what the transaction holds in memory, which is then emptied. */
  private pendingStatements(totals = true): Statement[] {
    const tx = this.tx!;
    let terms: PendingWrites['terms'];
    let id: (nt: string) => number;
    if (this.d.remote) {
      // One look-up statement per chunk of missing terms: gather them all first.
      const names: string[] = [];
      for (const r of tx.inserts.values()) {
        names.push(r.g, r.s, r.p, r.o);
        if (r.ng) names.push(r.ng);
      }
      for (const c of tx.closes.values()) names.push(c.g);
      for (const v of tx.versions.values()) names.push(v[0]);
      terms = this.resolveTerms(names);
      id = (nt) => this.termIds.get(nt)!;
    } else {
      // In process a term costs one cache probe, and a prepared statement when the cache lacks it: no list
      // of every term of every row first (bench/RESULTS.md, catch-up: that pass was a tenth of a catch-up).
      terms = [];
      id = (nt) => this.termIds.get(nt) ?? this.localTermIdOrNew(nt, terms);
    }
    const quads: PendingWrites['quads'] = [];
    for (const r of tx.inserts.values()) quads.push([r.id, id(r.g), id(r.s), id(r.p), id(r.o), r.from, r.to, r.ng ? id(r.ng) : null]);
    const closes: PendingWrites['closes'] = [];
    for (const [rowId, c] of tx.closes) closes.push([id(c.g), rowId, c.to]);
    const versions: PendingWrites['versions'] = [];
    for (const [g, ...rest] of tx.versions.values()) versions.push([id(g), ...rest]);
    const rows: PendingWrites = { terms, quads, closes, versions, sums: totals ? sumRows(tx.totals) : [] };
    tx.inserts.clear();
    tx.closes.clear();
    tx.versions.clear();
    if (totals) tx.totals.clear();
    const statements = this.d.writeStatements(rows);
    if (statements.length > 0) tx.wrote = true;
    return statements;
  }

  /** The last version and open rows of a document (its N-Triples IRI): from this transaction's view, else from the database. */
  private graphState(graph: string): GraphState {
    if (!this.tx!.graphs.has(graph)) this.readStates([graph.slice(1, -1)]);
    return this.tx!.graphs.get(graph)!;
  }

  /**
   * Reads the last version and open rows of these documents into the transaction's view, all in one round
   * trip: the catch-up calls it with a batch's documents, so that its versions then cost none each.
   */
  private readStates(graphs: string[]): void {
    const tx = this.tx;
    if (!tx) return;
    const wanted = [...new Set(graphs.map(iriTerm))].filter((nt) => !tx.graphs.has(nt));
    if (wanted.length === 0) return;
    const { lasts, open } = this.d.documentStates(wanted);
    for (const nt of wanted) tx.graphs.set(nt, { last: undefined, open: new Map() });
    for (const r of lasts) tx.graphs.get(r.nt)!.last = { time: r.time, kind: r.kind, triples: r.triples };
    for (const r of open) tx.graphs.get(r.nt)!.open.set(tripleLineHash(r.line), { id: r.id, from: r.from_t });
  }

  /** One version: `triples` undefined means the graph is gone. */
  private applyVersion(graph: string, time: number, triples: NtQuad[] | undefined): { added: number; removed: number } {
    const tx = this.tx!;
    const g = iriTerm(graph);
    const state = this.graphState(g);
    const last = state.last;
    if (last && time < last.time) {
      throw new Error(`putVersion(${graph}): time ${new Date(time).toISOString()} is before the graph's last version ${new Date(last.time).toISOString()}`);
    }
    // Deleting what is unknown or already gone is no event; an unchanged put is still a version (Ver lists it).
    if (!triples && (!last || last.kind === 'deleted')) return { added: 0, removed: 0 };
    let added = 0;
    let removed = 0;
    // Triples are compared by a hash of their text (the open rows' read with it): an unchanged triple costs no dictionary look-up.
    const kept = new Set<number>();
    const seen = new Set<number>();
    const born: Array<[number, OpenRow]> = [];
    // The version's rows take consecutive ids: its run (sqlite-schema.ts VERSIONS_TABLE).
    let firstRow: number | null = null;
    let lastRow: number | null = null;
    for (const [s, p, o, ng] of triples ?? []) {
      if (p === ALTERNATE_OF_NT) tx.alternates = true;
      const h = tripleHash(s, p, o, ng);
      if (seen.has(h)) continue; // the same triple twice in one version
      seen.add(h);
      if (state.open.has(h)) { kept.add(h); continue; }
      const rowId = tx.nextRow++;
      firstRow ??= rowId;
      lastRow = rowId;
      tx.inserts.set(rowId, { id: rowId, g, s, p, o, h, from: time, to: OPEN, ng: ng || null });
      born.push([h, { id: rowId, from: time }]);
      added++;
    }
    let deletedMax = false;
    for (const [h, row] of state.open) {
      if (kept.has(h)) continue;
      state.open.delete(h);
      removed++;
      if (row.from === time) {
        // Born at this same instant, never visible: dropped instead of leaving an empty interval.
        if (tx.inserts.delete(row.id)) continue;
        this.flushPending();
        this.d.run([{ sql: `DELETE FROM ${this.t.quads} WHERE g = ? AND ${this.d.rowId} = ?`, params: [this.termIds.get(g), row.id] }]);
        if (row.id === tx.nextRow - 1) deletedMax = true;
        continue;
      }
      const pending = tx.inserts.get(row.id);
      if (pending) pending.to = time;
      else tx.closes.set(row.id, { g, to: time });
    }
    for (const [h, row] of born) state.open.set(h, row);
    if (deletedMax) {
      // A new row takes max(id) + 1, as SQLite's rowid: row ids stay the same in both stores, and so the load order.
      this.flushPending();
      tx.nextRow = this.d.get<{ m: number }>(`SELECT coalesce(max(${this.d.rowId}), 0) AS m FROM ${this.t.quads}`)!.m + 1;
    }
    const kind: VersionKind = triples ? 'put' : 'deleted';
    if (last?.time === time) {
      // Against the version before this instant, not against the replaced one.
      this.flushPending();
      const gid = this.termIds.get(g);
      // The replaced version's rows born at this instant and kept are this one's too: its run spans both.
      // Born at this instant: in the replaced version's run or this one's (rows of other graphs between are not g's).
      const run = this.d.rowRuns ? this.d.get<{ a: number | null; b: number | null }>(`SELECT first_row AS a, last_row AS b FROM ${this.t.versions} WHERE graph = ? AND time = ?`, [gid, time]) : undefined;
      const ends = [run?.a, run?.b, firstRow, lastRow].filter((v): v is number => v !== null && v !== undefined).map(Number);
      const span = ends.length ? ` AND q.${this.d.rowId} BETWEEN ${Math.min(...ends)} AND ${Math.max(...ends)}` : this.d.rowRuns ? ' AND 1 = 0' : '';
      // Ended at this instant: rows of the versions before it.
      const closed: unknown[] = [];
      const before = this.d.graphRows(() => (closed.push(gid), '(?)'), () => (closed.push(time), '?'));
      const [[a], [r]] = this.d.run<{ n: number; first: number | null; last: number | null }>([
        { sql: `SELECT count(*) AS n, min(q.${this.d.rowId}) AS first, max(q.${this.d.rowId}) AS last FROM ${this.t.quads} q WHERE q.g = ?${span} AND q.to_t = ${OPEN} AND q.from_t = ?`, params: [gid, time] },
        { sql: `SELECT count(*) AS n FROM ${this.t.quads} q WHERE ${before} AND q.to_t = ?`, params: [...closed, time] },
      ]);
      added = Number(a!.n);
      removed = Number(r!.n);
      firstRow = a!.first === null ? null : Number(a!.first);
      lastRow = a!.last === null ? null : Number(a!.last);
    }
    tx.versions.set(`${g} ${time}`, [g, time, kind, added, removed, seen.size, firstRow, lastRow]);
    if (this.d.keepsTotals) tx.totals.set(time, (tx.totals.get(time) ?? 0) + totalChange(seen.size, last));
    state.last = { time, kind, triples: seen.size };
    tx.wrote = true;
    this.writes++;
    if (!this.d.remote) {
      // In process, a version costs no round trip: written now, the transaction holds one version, not a batch's.
      // Its change of the count totals waits for the commit (or a count): the versions of a batch add to the
      // same buckets but for the finest (five upserts a version: 275,000 in a catch-up of 55,000 versions).
      this.flushPending(false);
      tx.graphs.clear();
      // Every id made is written now, so the cache may drop some: bounded, as a long batch would grow it.
      this.termIds.trim();
    }
    return { added, removed };
  }

  /**
   * Every term in the cache: those not there looked up (a statement a chunk), those the database lacks
   * given new ids; returns the new ones, to be inserted.
   */
  private resolveTerms(terms: Iterable<string>): Array<[id: number, h: number, nt: string]> {
    const tx = this.tx!;
    const missing = new Set<string>();
    for (const nt of terms) if (!this.termIds.has(nt)) missing.add(nt);
    if (missing.size === 0) return [];
    if (this.d.remote) {
      const hashes = [...new Set([...missing].map(this.d.termHash))];
      for (let i = 0; i < hashes.length; i += this.d.chunk) {
        const any = this.d.anyOf('h', hashes.slice(i, i + this.d.chunk), 'bigint');
        for (const r of this.d.all<{ id: number; nt: string }>(`SELECT id, nt FROM ${this.t.terms} WHERE ${any.sql}`, any.params)) {
          if (missing.delete(r.nt)) this.termIds.set(r.nt, r.id);
        }
      }
    }
    const made: Array<[number, number, string]> = [];
    for (const nt of missing) {
      const h = this.d.termHash(nt);
      // In process, one prepared statement a term: one row per hash but for a 48-bit collision, so one
      // `get` (a third of the cost of reading every row of the hash) mostly answers.
      if (!this.d.remote && this.localTermId(nt, h) !== undefined) continue;
      const termId = tx.nextTerm++;
      made.push([termId, h, nt]);
      this.termIds.set(nt, termId);
    }
    return made;
  }

  /**
   * In process: a term's id from the database, else a new one (added to `made`, to be inserted). The probe
   * of a term that turns out new is not lost: it reads the page of the hash index that the term's insert
   * then writes. A filter of the dictionary's hashes that skipped those probes in a first catch-up saved
   * no CPU (bench/CATCH-UP.md, 2026-12-06).
   */
  private localTermIdOrNew(nt: string, made: PendingWrites['terms']): number {
    const h = this.d.termHash(nt);
    const found = this.localTermId(nt, h);
    if (found !== undefined) return found;
    const termId = this.tx!.nextTerm++;
    made.push([termId, h, nt]);
    this.termIds.set(nt, termId);
    return termId;
  }

  /** A term's id (`h` its hash) read in process, then cached. */
  private localTermId(nt: string, h: number): number | undefined {
    const sql = `SELECT id, nt FROM ${this.t.terms} WHERE h = ?`;
    const first = this.d.get<{ id: number; nt: string }>(sql, [h]);
    const id = first === undefined ? undefined : first.nt === nt ? first.id : this.d.all<{ id: number; nt: string }>(sql, [h]).find((r) => r.nt === nt)?.id;
    if (id !== undefined) this.termIds.set(nt, id);
    return id;
  }

  /** The last crawl-log id indexed into this store; undefined when none was ever recorded. */
  indexedLogId(): number | undefined {
    return this.meta(INDEXED_LOG_ID);
  }

  setIndexedLogId(id: number): void {
    this.d.run([{ sql: `INSERT INTO ${this.t.meta} (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, params: [INDEXED_LOG_ID, id] }]);
  }

  /** Whether the store holds any version (a store with versions but no indexed log id predates the indexer). */
  hasVersions(): boolean {
    return this.d.get(`SELECT 1 AS x FROM ${this.t.versions} LIMIT 1`) !== undefined;
  }

  /** Empties the store (inside `writeTransaction`), to index it again from the start. */
  clear(): void {
    const tx = this.tx;
    if (tx) Object.assign(tx, { nextRow: 1, nextTerm: 1, graphs: new Map(), inserts: new Map(), closes: new Map(), versions: new Map(), totals: new Map(), wrote: true });
    this.d.clearTables();
    this.termIds.clear();
    this.writes++;
  }

  async close(): Promise<void> {
    this.flush();
    await this.d.close();
  }

  private meta(key: string): number | undefined {
    return this.d.get<{ value: number }>(`SELECT value FROM ${this.t.meta} WHERE key = ?`, [key])?.value;
  }

  // ---- bulk loading: the dialect's -----------------------------------------------------------------

  dropReadIndexes(): string[] {
    return this.d.indexes.dropReadIndexes();
  }

  restoreIndexes(): void {
    this.d.indexes.restoreIndexes();
  }

  liveBulkLoader(): number | undefined {
    return this.d.indexes.liveBulkLoader();
  }

  missingIndexes(): string[] {
    return this.d.indexes.missingIndexes();
  }

  compactIndexes(minRows?: number): IndexCompaction | undefined {
    this.flush();
    return this.d.indexes.compactIndexes(minRows);
  }

  // ---- reads --------------------------------------------------------------------------------------

  private lookupTerm(nt: string): number | undefined {
    const cached = this.termIds.get(nt);
    if (cached !== undefined) return cached;
    const row = this.d.all<{ id: number; nt: string }>(`SELECT id, nt FROM ${this.t.terms} WHERE h = ?`, [this.d.termHash(nt)]).find((r) => r.nt === nt);
    // Kept by a remote store only, whose generation read says when another process rebuilt the dictionary.
    if (row && this.d.remote) this.termIds.set(nt, row.id);
    return row?.id;
  }

  private graphIds(graphs: string[] | undefined): number[] | undefined {
    if (!graphs) return undefined;
    return graphs.map((g) => this.lookupTerm(iriTerm(g))).filter((id): id is number => id !== undefined);
  }

  /**
   * The SQL condition of a graph selection (documents or named graphs); false when none is in the store.
   * `bornBy`: no row born after it is wanted (a document's later runs are not read).
   */
  private inGraphs(graphs: string[] | undefined, bornBy?: number): { sql: string; params: number[] } | false {
    const ids = this.graphIds(graphs);
    if (!ids) return { sql: '', params: [] };
    if (ids.length === 0) return false;
    // Bound, not written in: a read of one document is then one statement's text whichever document it reads,
    // prepared once (a statement's compile is a quarter of such a read: bench/ARCHIVE-SIZE.md, "The dictionary coded").
    const params: number[] = [];
    const list = `(${ids.map(() => '?').join(',')})`;
    const set = () => (params.push(...ids), list);
    const upTo = bornBy === undefined ? undefined : () => (params.push(Math.trunc(bornBy)), '?');
    // In the SQL's order: the dialect's rows of the documents first, then the named graphs.
    const rows = this.d.graphRows(set, upTo);
    return { sql: ` AND (${rows} OR ${this.d.ng} IN ${set()})`, params };
  }

  /** Every document graph with its version span and current size. */
  graphs(): GraphSummary[] {
    const { terms, versions } = this.t;
    return this.d.all<{ graph: string; firsttime: number; lasttime: number; versions: number; lastkind: VersionKind; triples: number }>(`
      SELECT t.nt AS graph, v.firsttime, v.lasttime, v.versions, l.kind AS lastkind, l.triples
      FROM (SELECT graph, min(time) AS firsttime, max(time) AS lasttime, count(*) AS versions FROM ${versions} GROUP BY graph) v
      JOIN ${versions} l ON l.graph = v.graph AND l.time = v.lasttime
      JOIN ${terms} t ON t.id = v.graph ORDER BY t.nt${this.d.binary}`).map((r) => ({
      graph: r.graph.slice(1, -1), firstTime: r.firsttime, lastTime: r.lasttime, versions: r.versions,
      deleted: r.lastkind === 'deleted', triples: r.triples,
    }));
  }

  /** The version log of one graph, oldest first (empty if the archive never saw it). */
  versions(graph: string): VersionInfo[] {
    const g = this.lookupTerm(iriTerm(graph));
    if (g === undefined) return [];
    return this.d.all<VersionInfo>(`SELECT time, kind, added, removed, triples FROM ${this.t.versions} WHERE graph = ? ORDER BY time`, [g]);
  }

  changes(opts: { from: number; to: number; after?: ChangeKey; limit: number }): ChangeRow[] {
    const { from, to, after } = opts;
    // Keyset paging over versions_by_time, which holds (time, graph): each page one range of the index.
    const start = after ? `(v.time > ? OR (v.time = ? AND v.graph > ?))` : `v.time >= ?`;
    const args = after ? [Math.max(after.time, from), Math.max(after.time, from), after.key] : [from];
    return this.d.all<{ time: number; key: number; nt: string; kind: VersionKind; triples: number }>(
      `SELECT v.time, v.graph AS key, t.nt, v.kind, v.triples FROM ${this.t.versions} v JOIN ${this.t.terms} t ON t.id = v.graph
       WHERE ${start} AND v.time < ? AND ${CHANGED} ORDER BY v.time, v.graph${limitClause(opts.limit)}`, [...args, to],
    ).map((r) => ({ time: Number(r.time), key: Number(r.key), graph: r.nt.slice(1, -1), kind: r.kind, triples: Number(r.triples) }));
  }

  /** Distinct instants at which some (selected) graph got a version: where answers can change. */
  changePoints(opts: { graphs?: string[]; from?: number; to?: number; limit?: number } = {}): number[] {
    const ids = this.graphIds(opts.graphs);
    if (ids && ids.length === 0) return [];
    const where = [`time >= ${Math.floor(opts.from ?? -OPEN)}`, `time <= ${Math.floor(opts.to ?? OPEN)}`];
    if (ids) where.push(`(graph IN (${ids.join(',')}) OR graph IN (SELECT DISTINCT q.g FROM ${this.t.quads} q WHERE ${this.d.ng} IN (${ids.join(',')})))`);
    return this.d.all<{ time: number }>(`SELECT DISTINCT time FROM ${this.t.versions} WHERE ${where.join(' AND ')} ORDER BY time${limitClause(opts.limit)}`).map((r) => r.time);
  }

  /** The quads valid at instant `at` (inclusive: a version at exactly `at` counts), streamed. */
  *snapshot(at: number, opts: { graphs?: string[] } = {}): Generator<QuadRow> {
    for (const [, row] of this.snapshotRows(at, opts)) yield row;
  }

  /**
   * The quads valid at `at`, streamed in row-id order: the order a query's rows are loaded in, whichever
   * rows those are, so that the engine answers in the same order over the whole snapshot as over the
   * rows of a query's patterns. A remote store reads a page at a time (keyset paging: each page one index range).
   */
  *snapshotRows(at: number, opts: { graphs?: string[] } = {}): Generator<[rowid: number, row: QuadRow]> {
    const t = checkTime(at, 'snapshot');
    const inGraphs = this.inGraphs(opts.graphs, t);
    if (inGraphs === false) return;
    const id = `q.${this.d.rowId}`;
    // A document's rows are found through its index or its versions' runs: no bound to read then.
    const bound = inGraphs.sql ? undefined : this.bornBy(t);
    if (!this.d.remote) {
      const params = [t, t];
      const sql = `SELECT ${id} AS rid, ${this.cols} FROM ${this.t.quads} q ${this.joins}
        WHERE q.to_t > ? AND q.from_t <= ?${bound?.((v) => (params.push(v), '?')) ?? ''}${inGraphs.sql} ORDER BY ${id}`;
      params.push(...inGraphs.params);
      for (const r of this.d.iterate<Row>(sql, params)) yield [r.rid, toQuadRow(r)];
      return;
    }
    let after = 0;
    for (;;) {
      const params = [after, t, t];
      const sql = `SELECT ${id} AS rid, ${this.cols} FROM ${this.t.quads} q ${this.joins}
         WHERE ${id} > ? AND q.to_t > ? AND q.from_t <= ?${bound?.((v) => (params.push(v), '?')) ?? ''}${inGraphs.sql} ORDER BY ${id} LIMIT ${PAGE}`;
      const rows = this.d.all<Row>(sql, [...params, ...inGraphs.params]);
      for (const r of rows) yield [r.rid, toQuadRow(r)];
      if (rows.length < PAGE) return;
      after = rows.at(-1)!.rid;
    }
  }

  /**
   * Diff(from, to): what was added and removed between the state at `from` and the state at `to`.
   * A triple removed and re-added in between is in neither list (it holds at both instants).
   */
  delta(from: number, to: number, opts: { graphs?: string[] } = {}): Delta {
    // Instants from OPEN on are beyond every end (and none is stored): the same answer as OPEN - 1.
    const t1 = Math.min(checkTime(from, 'delta'), OPEN - 1);
    const t2 = Math.min(checkTime(to, 'delta'), OPEN - 1);
    if (t2 < t1) throw new Error('delta: `to` is before `from`');
    const inGraphs = this.inGraphs(opts.graphs, t2);
    if (inGraphs === false) return { from: t1, to: t2, added: [], removed: [] };
    const select = `SELECT ${this.rowKey} AS k, ${this.cols} FROM ${this.t.quads} q ${this.joins}`;
    // In row-id order, as both stores read rows; sorted, so that SQLite keeps to the range of the times' index.
    const order = `${inGraphs.sql} ORDER BY ${this.d.noIndex(`q.${this.d.rowId}`)}`;
    // A span of ends short of OPEN: the stored end (dialect.ts endColumn) says it, through the index of ended rows.
    const end = `q.${this.d.endColumn}`;
    // The rows born in the span are the runs of its versions (sqlite-schema.ts VERSIONS_TABLE), each a range
    // of row ids: SQLite seeks by the document's index, or builds one of starts, when left to choose.
    const added: Statement = this.d.rowRuns
      ? { sql: `SELECT ${this.rowKey} AS k, ${this.cols} FROM ${this.t.versions} v CROSS JOIN ${this.t.quads} q ${this.joins}
           WHERE v.time > ? AND v.time <= ? AND q.${this.d.rowId} BETWEEN v.first_row AND v.last_row
             AND ${this.d.noIndex('q.g')} = v.graph AND ${this.d.noIndex('q.from_t')} = v.time AND q.to_t > ?${order}`, params: [t1, t2, t2, ...inGraphs.params] }
      : { sql: `${select} WHERE q.from_t > ? AND q.from_t <= ? AND q.to_t > ?${order}`, params: [t1, t2, t2, ...inGraphs.params] };
    const [addedRows, removedRows] = this.d.run<RawRow & { k: string }>([
      added,
      { sql: `${select} WHERE ${end} > ? AND ${end} <= ? AND q.from_t <= ?${order}`, params: [t1, t2, t1, ...inGraphs.params] },
    ]);
    const addedKeys = new Set(addedRows!.map((r) => r.k));
    const removedKeys = new Set(removedRows!.map((r) => r.k));
    return {
      from: t1,
      to: t2,
      added: addedRows!.filter((r) => !removedKeys.has(r.k)).map(toQuadRow),
      removed: removedRows!.filter((r) => !addedKeys.has(r.k)).map(toQuadRow),
    };
  }

  /**
   * Ver(pattern): every quad matching a triple pattern at some time, with its validity intervals and the
   * versions of its graph in which it holds. Reads the timestamped rows directly (no materialisation).
   */
  patternVersions(pattern: TriplePattern): PatternVersions[] {
    const where: string[] = [];
    const args: number[] = [];
    for (const [column, position] of [['s', pattern.s], ['p', pattern.p], ['o', pattern.o], ['g', pattern.graph]] as const) {
      if (!position || !('term' in position)) continue;
      const nt = column === 'g' ? (position.term.startsWith('<') ? position.term : iriTerm(position.term)) : position.term;
      const id = this.lookupTerm(nt);
      if (id === undefined) return [];
      // A graph constant names a document or a named graph inside one.
      const one = () => (args.push(id), '?');
      where.push(column === 'g' ? `(${this.d.graphRows(() => `(${one()})`)} OR ${this.d.ng} = ${one()})` : `q.${column} = ${one()}`);
    }
    const rows = this.d.all<RawRow & { k: string; from_t: number; to_t: number; gid: number }>(
      `SELECT ${this.rowKey} AS k, q.g AS gid, q.from_t, q.to_t, ${this.cols}
       FROM ${this.t.quads} q ${this.joins} ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY (${this.rowKey})${this.d.binary}, q.from_t`, args);
    const byKey = intervalsByQuad(rows, pattern);
    const gids = [...new Set([...byKey.values()].map((e) => e.gid))];
    const timesOf = new Map<number, number[]>();
    if (gids.length > 0) {
      for (const r of this.d.all<{ graph: number; time: number }>(
        `SELECT graph, time FROM ${this.t.versions} WHERE graph IN (${gids.map((g) => Math.trunc(g)).join(',')}) AND kind = 'put' ORDER BY graph, time`)) {
        timesOf.set(r.graph, [...(timesOf.get(r.graph) ?? []), r.time]);
      }
    }
    const out: PatternVersions[] = [];
    for (const { gid, ...entry } of byKey.values()) {
      entry.versions = (timesOf.get(gid) ?? []).filter((t) => entry.intervals.some((i: Interval) => t >= i.from && (i.to === undefined || t < i.to)));
      out.push(entry);
    }
    return out;
  }

  /** Size and counts (bytes: what the store takes on disk now). */
  stats(): ArchiveStats {
    const { terms, versions, quads } = this.t;
    const counts = this.d.get<{ graphs: number; versions: number; terms: number; rows: number }>(`SELECT
      (SELECT count(DISTINCT graph) FROM ${versions}) AS graphs, (SELECT count(*) FROM ${versions}) AS versions,
      (SELECT count(*) FROM ${terms}) AS terms, (SELECT count(*) FROM ${quads}) AS rows`)!;
    const { file, bytes } = this.d.size();
    return { file, bytes, graphs: counts.graphs, versions: counts.versions, terms: counts.terms, rows: counts.rows };
  }

  // ---- reads for the query planner (src/query/plan) ----------------------------------------------

  /**
   * The ids of the rows valid at `at` whose terms are those of a pattern's constants (N-Triples;
   * undefined: any), through the index of its most selective bound position; no term is read. A constant
   * the dictionary lacks matches nothing.
   */
  matchAt(at: number, pattern: RowConstants, opts: { graphs?: string[]; limit?: number } = {}): number[] {
    const t = checkTime(at, 'matchAt');
    if (this.d.remote) {
      const statement = this.matchStatement(t, [pattern], opts.graphs, 'ids');
      return this.d.all<{ id: number }>(statement.sql + firstByRowId('id', opts.limit), statement.params).map((r) => r.id);
    }
    const inGraphs = this.inGraphs(opts.graphs, t);
    const where = this.patternWhere(pattern);
    if (inGraphs === false || where === undefined) return [];
    const id = `q.${this.d.rowId}`;
    const params = [...where.args, t, t];
    const bound = where.sql.length === 0 && !inGraphs.sql ? this.bornBy(t)((v) => (params.push(v), '?')) : '';
    return this.d.all<{ id: number }>(
      `SELECT ${id} AS id FROM ${this.t.quads} q WHERE ${[...where.sql, 'q.to_t > ?', 'q.from_t <= ?'].join(' AND ')}${bound}${inGraphs.sql}${firstByRowId(id, opts.limit)}`,
      [...params, ...inGraphs.params]).map((r) => r.id);
  }

  /**
   * The rows of a selective query in as few round trips as its size allows: when the planner's estimate
   * (an upper bound: it counted every row of each pattern, at any time) fits in a page, one statement
   * resolves the terms, finds each pattern's rows at `at`, merges them and joins their terms; otherwise
   * every pattern's row ids in one call, then their rows a page at a time.
   */
  private *rowsMatching(at: number, patterns: RowConstants[], estimate: number, opts: { graphs?: string[] } = {}): Generator<[rowid: number, row: QuadRow]> {
    const t = checkTime(at, 'rowsMatchingAt');
    if (patterns.length === 0) return;
    const ahead = this.ahead;
    if (ahead?.rows && estimate <= PAGE && ahead.rowsKey === readAheadKey(t, patterns, opts.graphs)) {
      const rows = ahead.rows;
      ahead.rows = undefined;
      for (const r of rows) yield [r.rid, toQuadRow(r)];
      return;
    }
    if (estimate <= PAGE) {
      for (const r of this.d.run<Row>([this.matchStatement(t, patterns, opts.graphs, 'rows')])[0]!) yield [r.rid, toQuadRow(r)];
      return;
    }
    const ids = new Set<number>();
    for (const rows of this.d.run<{ id: number }>(patterns.map((p) => this.matchStatement(t, [p], opts.graphs, 'ids')))) for (const r of rows) ids.add(r.id);
    yield* this.rowsById(Float64Array.from(ids).sort());
  }

  /**
   * What planning and loading a selective query at `at` ask of a remote store next, in one statement: the
   * generation (with the next row id and the alternates mark), each pattern's count of rows up to PAGE + 1
   * (countMatching's), and, when those add up to at most `rowsUpTo` and a page, the rows rowsMatchingAt
   * would read. One statement, so one snapshot of the database: the rows are those of the generation read.
   * Kept until the event loop turns or this store writes; a call it does not answer reads the database.
   */
  private async readAheadNow(at: number, patterns: RowConstants[], opts: { graphs?: string[]; rowsUpTo: number }): Promise<void> {
    const t = checkTime(at, 'readAhead');
    this.ahead = undefined;
    if (patterns.length === 0) return;
    const upTo = Math.min(PAGE, opts.rowsUpTo);
    const matching = (pattern: RowConstants, columns: string): Statement & { params: unknown[] } => {
      const params: unknown[] = [];
      const where = this.resolvedConditions(pattern, params);
      params.push(PAGE + 1);
      return { sql: `SELECT ${columns} FROM ${this.t.quads} q${where.length ? ` WHERE ${where.join(' AND ')}` : ''} LIMIT ?`, params };
    };
    let answer: { generation: Generation; counts: number[]; rows: Row[] } | undefined;
    if (upTo === PAGE) {
      // Rows of every page-sized set may be read: each pattern's rows of any time, up to a page and one, are
      // read once, counted, and those valid at `t` kept: one index range a pattern, not one for the count and
      // another for the rows (a third less of the statement's time on the server, bench/PG-VERSIONS.md). A
      // pattern of more rows costs them read rather than counted; its query then reads at least as many.
      const sources = patterns.map((pattern, i) => {
        const m = matching(pattern, 'q.id, q.g, q.s, q.p, q.o, q.ng, q.from_t, q.to_t');
        return { sql: `m${i} AS MATERIALIZED (${m.sql})`, params: m.params };
      });
      const counts = patterns.map((_p, i): Statement => ({ sql: `(SELECT count(*) FROM m${i})` }));
      const rows = this.matchStatement(t, patterns, opts.graphs, 'rows by subquery', patterns.map((_p, i) => `m${i}`));
      answer = await this.d.readAhead!<Row>(counts, rows, upTo, sources);
    } else {
      // Few rows wanted: a pattern of many is counted, not read.
      const counts = patterns.map((pattern): Statement => {
        const m = matching(pattern, '1 AS x');
        return { sql: `(SELECT count(*) FROM (${m.sql}) x)`, params: m.params };
      });
      const rows = this.matchStatement(t, patterns, opts.graphs, 'rows by subquery');
      answer = await this.d.readAhead!<Row>(counts, rows, upTo);
    }
    if (!answer) return;
    const total = answer.counts.reduce((a, b) => a + b, 0);
    const ahead: ReadAhead = {
      generation: this.tookGeneration(answer.generation),
      counts: new Map(patterns.map((p, i) => [readAheadKey(undefined, [p]), answer.counts[i]!])),
      rows: total <= upTo ? answer.rows : undefined,
      rowsKey: readAheadKey(t, patterns, opts.graphs),
    };
    this.ahead = ahead;
    setImmediate(() => {
      if (this.ahead === ahead) this.ahead = undefined;
    }).unref();
  }

  /**
   * One statement for the rows valid at `t` that match any of `patterns` (and lie in `graphs`): their
   * ids, or the rows with their terms in row-id order; every term resolved in the statement, the graphs' too.
   * `sources`: for each pattern, a relation of the quads table's columns that holds every row it matches
   * (a read-ahead's), read instead of the table.
   */
  private matchStatement(t: number, patterns: RowConstants[], graphs: string[] | undefined, what: 'ids' | 'rows' | 'rows by subquery', sources?: string[]): Statement & { params: unknown[] } {
    const params: unknown[] = [];
    let inGraphs = '';
    const id = `q.${this.d.rowId}`;
    if (graphs) {
      const nts = [...new Set(graphs.map(iriTerm))];
      const hs = this.d.anyOf('h', nts.map(this.d.termHash), 'bigint');
      const ns = this.d.anyOf('nt', nts, 'text');
      const ids = () => (params.push(...hs.params!, ...ns.params!), `(SELECT id FROM ${this.t.terms} WHERE ${hs.sql} AND ${ns.sql})`);
      inGraphs = ` AND (${this.d.graphRows(ids)} OR ${this.d.ng} IN ${ids()})`;
    }
    const selects = patterns.map((pattern, i) => {
      const own: unknown[] = [];
      const sql = sources ? [] : this.resolvedConditions(pattern, own);
      const columns = what === 'ids' ? `${id} AS id` : `${id} AS id, q.g, q.s, q.p, q.o, q.ng`;
      own.push(t, t);
      const bound = sql.length === 0 && !sources && !graphs ? this.bornBy(t)((v) => (own.push(v), '?')) : '';
      return { sql: `SELECT ${columns} FROM ${sources?.[i] ?? this.t.quads} q WHERE ${[...sql, 'q.to_t > ?', 'q.from_t <= ?'].join(' AND ')}${bound}${inGraphs}`, params: [...own, ...params] };
    });
    const union = { sql: selects.map((s) => s.sql).join(' UNION '), params: selects.flatMap((s) => s.params) };
    if (what === 'ids') return union;
    if (what === 'rows') return { sql: `SELECT q.id AS rid, ${this.cols} FROM (${union.sql}) q ${this.joins} ORDER BY q.id`, params: union.params };
    // Each term's text by a scalar subquery, not a join: the same rows, and PostgreSQL plans it in a third of
    // the time (five joins of the dictionary over sixteen partitions), and runs its generic plan faster.
    const text = (column: string) => `(SELECT nt FROM ${this.t.terms} WHERE id = q.${column})`;
    return { sql: `SELECT q.id AS rid, ${['g', 's', 'p', 'o', 'ng'].map((c) => `${text(c)} AS ${c}`).join(', ')} FROM (${union.sql}) q ORDER BY q.id`, params: union.params };
  }

  /**
   * A pattern's WHERE conditions (patternConditions) with each term resolved by the statement itself, a
   * scalar subquery on the dictionary that the database runs once before scanning: no look-up round trip,
   * and a term the store lacks gives NULL, which matches nothing. patternConditions asks for a term's
   * placeholder right after looking the term up, so the last term looked up is the one each stands for.
   */
  private resolvedConditions(pattern: RowConstants, params: unknown[]): string[] {
    let last = '';
    const where = patternConditions(pattern, (nt) => ((last = nt), 0), () => {
      params.push(this.d.termHash(last), last);
      return `(SELECT id FROM ${this.t.terms} WHERE h = ? AND nt = ?)`;
    }, this.d.ng, this.d.graphRows);
    return where!.sql;
  }

  /** The rows of these ids (ascending), with their terms, streamed a chunk at a time. */
  *rowsById(rowids: ArrayLike<number>): Generator<[rowid: number, row: QuadRow]> {
    const id = `q.${this.d.rowId}`;
    for (let i = 0; i < rowids.length; i += this.d.chunk) {
      const ids = Array.from({ length: Math.min(this.d.chunk, rowids.length - i) }, (_v, k) => rowids[i + k]!);
      const any = this.d.anyOf(id, ids, 'bigint');
      for (const r of this.d.iterate<Row>(`SELECT ${id} AS rid, ${this.cols} FROM ${this.t.quads} q ${this.joins} WHERE ${any.sql} ORDER BY ${id}`, any.params)) {
        yield [r.rid, toQuadRow(r)];
      }
    }
  }

  /**
   * How many rows (of any time) a pattern's constants match, counted up to `cap`: the planner's
   * estimate of what loading them costs. One index range, stopped at the cap.
   */
  countMatching(pattern: RowConstants, cap: number): number {
    const ahead = this.ahead?.counts.get(readAheadKey(undefined, [pattern]));
    // Exact up to PAGE; PAGE + 1 says "more than PAGE", which answers any cap up to that.
    if (ahead !== undefined && (ahead <= PAGE || cap <= PAGE + 1)) return Math.min(ahead, Math.max(0, Math.floor(cap)));
    let where: { sql: string[]; args: unknown[] } | undefined;
    if (this.d.remote) {
      const args: unknown[] = [];
      where = { sql: this.resolvedConditions(pattern, args), args };
    } else where = this.patternWhere(pattern);
    if (where === undefined) return 0;
    const sql = where.sql.length ? `WHERE ${where.sql.join(' AND ')}` : '';
    return this.d.get<{ n: number }>(`SELECT count(*) AS n FROM (SELECT 1 AS x FROM ${this.t.quads} q ${sql} LIMIT ?) x`, [...where.args, Math.max(0, Math.floor(cap))])!.n;
  }

  countAt(at: number, pattern: RowConstants, req: CountRequest): number {
    const t = checkTime(at, 'countAt');
    // A count on the writer's connection inside its transaction (a batch of putVersion calls) sees its versions.
    if (this.tx && this.tx.totals.size > 0) this.flushPending();
    const named = this.d.ng === 'NULL' ? '0' : `EXISTS (SELECT 1 FROM ${this.t.quads} q WHERE ${this.namedRowsAtT})`;
    const state = this.d.get<{ named: unknown; totals: unknown }>(
      `SELECT ${named} AS named, EXISTS (SELECT 1 FROM ${this.t.meta} WHERE key = ?) AS totals`, this.d.ng === 'NULL' ? [COUNT_TOTALS_KEY] : [t, t, COUNT_TOTALS_KEY])!;
    const q = countSql(pattern, req, t, (nt) => this.lookupTerm(nt), () => this.d.bigintParam, this.t.quads, this.d.ng, Boolean(state.named), this.bornBy(t),
      this.d.graphRows, state.totals ? this.t.sums : undefined);
    return q ? Number(this.d.get<{ n: number }>(q.sql, q.args)!.n) : 0;
  }

  triplesAt(at: number, pattern: RowConstants, page: TriplesPage): TripleRow[] {
    const t = checkTime(at, 'triplesAt');
    const tables: FragmentTables = {
      quads: this.t.quads, terms: this.t.terms, rowId: this.d.rowId, ng: this.d.ng, noIndex: (e) => this.d.noIndex(e), lookup: (nt) => this.lookupTerm(nt),
      // Read for every page: at most twice FRAGMENT_BORN_BY index entries, a fraction of a page's time.
      bornBy: this.bornBy(t, FRAGMENT_BORN_BY),
      graphRows: this.d.graphRows,
    };
    const rows = tripleRowsSql(pattern, t, page, tables);
    const out: TripleRow[] = rows ? this.d.all<TripleRow>(rows.sql, rows.args).map(({ s, p, o, id }) => ({ s, p, o, id: Number(id) })) : [];
    if (out.length >= page.limit) return out;
    // The triples ended on this page or before it: the dm:inDocument statements follow them (from their
    // first after a cursor, which only a page of triples leaves).
    const before = page.after !== undefined ? page.offset : out.length > 0 || page.offset === 0 ? page.offset + out.length : this.tripleCount(pattern, t, page, tables);
    const statements = inDocumentSql(pattern, t, { ...page, offset: Math.max(0, page.offset - before), limit: page.limit - out.length }, tables);
    if (statements) for (const r of this.d.all<{ s: string; o: string }>(statements.sql, statements.args)) out.push({ s: r.s, p: IN_DOCUMENT_TERM, o: r.o });
    return out;
  }

  private tripleCount(pattern: RowConstants, at: number, page: TriplesPage, tables: FragmentTables): number {
    const q = tripleCountSql(pattern, at, page, tables);
    return q ? Number(this.d.get<{ n: number }>(q.sql, q.args)!.n) : 0;
  }

  /**
   * The bound on the ids of rows born by `at` (backend.ts RowBound, bornBySql), read on its first use; none in
   * a store without runs, whose index of every row's start serves a read with no constant.
   */
  private bornBy(at: number, upTo?: number): RowBound {
    let bound: number | null | undefined;
    return (param) => {
      if (bound === undefined) {
        const r = this.d.rowRuns ? this.d.get<{ r: number | string | null }>(bornBySql(this.t.versions, upTo), [at, at])?.r : null;
        bound = r === null || r === undefined ? null : Number(r);
      }
      return bound === null ? '' : ` AND q.${this.d.rowId} <= ${param(bound)}`;
    };
  }

  /**
   * The rows of named graphs valid at T, through the partial index of named-graph rows: SQLite would
   * take the validity's index instead, which read every open row (2.5 s a count at 1,000,000 documents,
   * where no row has a named graph) against 0.5 ms.
   */
  private get namedRowsAtT(): string {
    return `q.ng IS NOT NULL AND ${this.d.noIndex('q.to_t')} > ? AND ${this.d.noIndex('q.from_t')} <= ?`;
  }

  literalTerms(after: number, limit: number): Array<{ id: number; nt: string }> {
    return this.d.all<{ id: number; nt: string }>(`${this.d.literalTermsSql('id > ?')} ORDER BY id LIMIT ?`, [after, limit]);
  }

  /**
   * The engine-form test runs on raw rows as they are read: only the few terms not in that form become
   * objects here (the count planner's first pass read 4,000,000 literal terms at 1,000,000 documents to keep
   * 100,000). Not as a function of the connection called by SQLite's scan: V8 (Node 20) died in its
   * deoptimizer in about one CLI count in six that way ("Fatal error … unreachable code", signal 5).
   */
  private oddLiterals(after: number, limit: number, upTo: number): Array<{ id: number; nt: string }> {
    const odd: Array<{ id: number; nt: string }> = [];
    const rows = this.d.iterate<[number, string]>(`${this.d.literalTermsSql('id > ? AND id <= ?')} ORDER BY id`, [after, upTo], true);
    for (const [id, nt] of rows) {
      if (inEngineForm(nt)) continue;
      odd.push({ id, nt });
      if (odd.length >= limit) break;
    }
    return odd;
  }

  termCheckMemo(): TermCheckMemo {
    return this.d.termCheckMemo();
  }

  idsOfTerms(nts: string[]): Array<number | undefined> {
    if (!this.d.remote) return nts.map((nt) => this.lookupTerm(nt));
    const missing = [...new Set(nts.filter((nt) => !this.termIds.has(nt)))];
    // A round trip a chunk, not a term: the count's term check looks up thousands of engine forms at once.
    for (let i = 0; i < missing.length; i += this.d.chunk) {
      const part = missing.slice(i, i + this.d.chunk);
      const hs = this.d.anyOf('h', part.map(this.d.termHash), 'bigint');
      const ns = this.d.anyOf('nt', part, 'text');
      for (const r of this.d.all<{ id: number; nt: string }>(`SELECT id, nt FROM ${this.t.terms} WHERE ${hs.sql} AND ${ns.sql}`, [...hs.params!, ...ns.params!])) {
        this.termIds.set(r.nt, r.id);
      }
    }
    return nts.map((nt) => this.termIds.get(nt));
  }

  /** About how many rows the store holds, without counting them (rows are deleted only on a rebuild). */
  rowsEstimate(): number {
    if (!this.d.remote) return this.d.get<{ n: number | null }>(`SELECT max(rowid) AS n FROM ${this.t.quads}`)?.n ?? 0;
    if (this.nextRowSeen === undefined) void this.generation;
    return (this.nextRowSeen ?? 1) - 1;
  }

  /** The named graphs with a quad valid at `at`, each with its document (the snapshot's `dm:inDocument`). */
  namedGraphsAt(at: number, opts: { graphs?: string[] } = {}): QuadRow[] {
    if (this.d.ng === 'NULL') return [];
    const t = checkTime(at, 'namedGraphsAt');
    const inGraphs = this.inGraphs(opts.graphs, t);
    if (inGraphs === false) return [];
    return this.d.all<{ g: string; ng: string }>(
      `SELECT DISTINCT tg.nt AS g, tn.nt AS ng FROM ${this.t.quads} q JOIN ${this.t.terms} tg ON tg.id = q.g JOIN ${this.t.terms} tn ON tn.id = q.ng
       WHERE ${this.namedRowsAtT}${inGraphs.sql}`, [t, t, ...inGraphs.params])
      .map((r) => ({ graph: r.g.slice(1, -1), s: '', p: '', o: '', namedGraph: r.ng }));
  }

  private patternWhere(pattern: RowConstants): { sql: string[]; args: number[] } | undefined {
    return patternConditions(pattern, (nt) => this.lookupTerm(nt), () => '?', this.d.ng, this.d.graphRows);
  }
}
