import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CrawlLog, CrawlLogEntry } from '../store/types.ts';
import { openVersionStore } from './sqlite-store.ts';
import { VERSIONS_FILE } from '../util/data-dir.ts';
import { PgVersionArchive } from './pg-store.ts';
import type { VersionBackend } from './backend.ts';
import { redactUrl } from '../store/redact.ts';
// The indexer loads only when the index is behind (catchUp): a query on a current index never pays for it.
import type { CatchUpProgress, CatchUpResult } from './catch-up.ts';
import { writableDir } from '../util/disk.ts';
import { formatDuration } from '../util/units.ts';

/**
 * The versioned store of a data directory as the readers (`query`, `diff`, `serve`) use it: the
 * persistent index `<data>/versions.sqlite`, caught up with the crawl log before answering. When the
 * data directory cannot be written, a temporary index built from the WARC records takes its place (and
 * is removed on close): answers never depend on being allowed to write. With a PostgreSQL crawl store
 * (`--db postgres://…`) the index lives in that database instead (pg-store.ts, pg-dialect.ts): one index
 * shared by every reader and worker, caught up by whichever reader comes first.
 */
/**
 * A reader would wait longer than it may for the index to catch up (`serve` waits a few seconds, then
 * answers 503): says how far the catch-up is and, once it has measured its pace, how long it has left.
 */
export class IndexCatchingUpError extends Error {
  /** Seconds to wait before asking again (a Retry-After header). */
  readonly retryAfter: number;
  constructor(p: CatchUpStatus) {
    const left = p.secondsLeft !== undefined ? `, about ${formatDuration(Math.ceil(p.secondsLeft) * 1000)} left` : '';
    const where = p.phase === 'indexes'
      ? "building the archive's read indexes again after a bulk load"
      : p.total > 0 ? `${p.done.toLocaleString('en')} of ${p.total.toLocaleString('en')} crawl-log rows indexed (${Math.floor((100 * p.done) / p.total)} %)` : 'starting';
    super(`the archive's index is catching up with the crawl log: ${where}${left}; ask again then`);
    this.name = 'IndexCatchingUpError';
    this.retryAfter = Math.max(1, Math.min(600, Math.ceil(p.secondsLeft ?? 10)));
  }
}

/** Where a running catch-up is: `secondsLeft` from its pace so far (absent until it has one). */
export interface CatchUpStatus extends Pick<CatchUpProgress, 'done' | 'total' | 'phase'> {
  secondsLeft?: number;
}

export class VersionIndex {
  private syncing: Promise<CatchUpResult> | undefined;
  /** The running catch-up's last progress, and when it started. */
  private running: { started: number; last?: CatchUpProgress } | undefined;
  /** Versions that could not be indexed (a few first ones), across catch-ups. */
  readonly diagnostics: string[] = [];
  /** Of a store this process may not write: the log rows past its indexed id counted so far (see behind). */
  private backlog: { indexed: number; upTo: number; rows: number; versions: number } | undefined;

  private constructor(
    private readonly dataDir: string,
    private readonly store: CrawlLog,
    private archiveInUse: VersionBackend,
    /** The directory of a temporary index (removed on close); undefined for `<data>/versions.sqlite`. */
    private temporaryDir: string | undefined,
  ) {}

  /** `db`: the crawl store's URL; a postgres:// one puts the index in that database too. */
  static open(dataDir: string, store: CrawlLog, db?: string): VersionIndex {
    const dir = path.resolve(dataDir);
    // A database user with SELECT only opens it read-only (writable false): it is read as it is, see runCatchUp.
    if (db && isPostgresUrl(db)) return new VersionIndex(dir, store, new PgVersionArchive(db), undefined);
    if (writable(dir)) {
      try {
        return new VersionIndex(dir, store, openVersionStore(dir), undefined);
      } catch (e) {
        if (!cannotWrite(e)) throw e;
      }
    }
    const tmp = temporaryIndexDir();
    return new VersionIndex(dir, store, openVersionStore(tmp), tmp);
  }

  get archive(): VersionBackend {
    return this.archiveInUse;
  }

  get temporary(): boolean {
    return this.temporaryDir !== undefined;
  }

  /** Where the versions come from, for the dashboard and `serve`'s start-up line. */
  get source(): string {
    if (this.archiveInUse.kind === 'postgres') return `the versioned store in PostgreSQL at ${redactUrl(this.archiveInUse.file)}`;
    return this.temporaryDir
      ? `a temporary index built from the WARC conversion records (${this.dataDir} is not writable)`
      : this.archiveInUse.file;
  }

  /**
   * Indexes the crawl-log rows the store has not seen. Concurrent calls in this process share one
   * catch-up; another process catching up the same file waits for SQLite's write lock.
   */
  catchUp(onProgress?: (p: CatchUpProgress) => void): Promise<CatchUpResult> {
    if (!this.syncing) {
      const running: { started: number; last?: CatchUpProgress } = { started: Date.now() };
      this.running = running;
      this.syncing = this.runCatchUp((p) => {
        running.last = p;
        onProgress?.(p);
      }).finally(() => {
        this.syncing = undefined;
        if (this.running === running) this.running = undefined;
      });
    }
    return this.syncing;
  }

  /** Where the running catch-up is, if one runs. Its time left is its pace so far applied to the rows left. */
  catchUpStatus(now = Date.now()): CatchUpStatus | undefined {
    const r = this.running;
    if (!r) return undefined;
    const p = r.last ?? { done: 0, total: 0, phase: 'versions' as const };
    const elapsed = (now - r.started) / 1000;
    const secondsLeft = p.phase === 'versions' && p.done > 0 && p.total > p.done && elapsed > 1 ? (elapsed * (p.total - p.done)) / p.done : undefined;
    return { done: p.done, total: p.total, phase: p.phase, ...(secondsLeft !== undefined && { secondsLeft }) };
  }

  /**
   * The store, brought up to date with the crawl log first. With `waitMs`, a catch-up that has not ended by
   * then throws IndexCatchingUpError (how far it is, how long it has left) instead of holding the caller
   * for what may be minutes on a large new archive; the catch-up goes on.
   */
  async current(o: { waitMs?: number } = {}): Promise<VersionBackend> {
    const caughtUp = this.catchUp();
    if (o.waitMs === undefined) {
      await caughtUp;
      return this.archiveInUse;
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), o.waitMs)));
    try {
      if ((await Promise.race([caughtUp, late])) === 'late') throw new IndexCatchingUpError(this.catchUpStatus() ?? { done: 0, total: 0, phase: 'versions' });
    } finally {
      clearTimeout(timer);
    }
    return this.archiveInUse;
  }

  /** Whether this process may catch the index up: not a PostgreSQL store its database user may only read. */
  get writable(): boolean {
    const archive = this.archiveInUse;
    return !(archive instanceof PgVersionArchive) || archive.writable;
  }

  private async runCatchUp(onProgress?: (p: CatchUpProgress) => void): Promise<CatchUpResult> {
    // Usually (a query on an archive no crawl wrote to since) there is nothing to index: two reads say so,
    // and the indexer (WARC reader, N3, RDFC-1.0: ~150 ms of CPU to load) is not loaded at all.
    const upToDate = await this.upToDate();
    if (upToDate || !this.writable) {
      const lastLogId = this.archiveInUse.indexedLogId() ?? 0;
      const behind = upToDate ? undefined : await this.countBehind();
      return { rows: 0, lateRows: 0, versions: 0, deletions: 0, failed: 0, rebuilt: false, bulk: false, lastLogId, diagnostics: [], ...(behind && behind.rows > 0 && { behind }) };
    }
    const { catchUpVersions } = await import('./catch-up.ts');
    let result: CatchUpResult;
    try {
      result = await catchUpVersions(this.archiveInUse, this.store, this.dataDir, { onProgress });
    } catch (e) {
      // Opened, but the first write is refused (a read-only file, a directory where the WAL cannot be made).
      if (this.temporaryDir || this.archiveInUse.kind === 'postgres' || !cannotWrite(e)) throw e;
      await this.archiveInUse.close();
      this.temporaryDir = temporaryIndexDir();
      this.archiveInUse = openVersionStore(this.temporaryDir);
      result = await catchUpVersions(this.archiveInUse, this.store, this.dataDir, { onProgress });
    }
    for (const d of result.diagnostics) if (this.diagnostics.length < 100) this.diagnostics.push(d);
    return result;
  }

  /**
   * How far a store this process may not write lags the crawl log: its rows past the indexed id, and of
   * those the versions and deletions the index lacks. Counted once (a server asks on every request):
   * later calls read only the rows logged since, and at most MAX_BEHIND_ROWS rows a call.
   */
  private async countBehind(): Promise<NonNullable<CatchUpResult['behind']>> {
    const indexed = this.archiveInUse.indexedLogId() ?? 0;
    if (this.backlog?.indexed !== indexed) this.backlog = { indexed, upTo: indexed, rows: 0, versions: 0 };
    const b = this.backlog;
    for (let read = 0; read < MAX_BEHIND_ROWS; read += BEHIND_PAGE) {
      const rows = await this.store.log({ sinceId: b.upTo, limit: BEHIND_PAGE });
      if (rows.length === 0) return { rows: b.rows, versions: b.versions, atLeast: false };
      b.rows += rows.length;
      b.versions += rows.filter(changesIndex).length;
      b.upTo = rows.at(-1)!.id!;
    }
    return { rows: b.rows, versions: b.versions, atLeast: (await this.store.log({ sinceId: b.upTo, limit: 1 })).length > 0 };
  }

  /** Whether catchUpVersions would find nothing to do: no log row past the indexed one, no gap to re-check, no index to rebuild. */
  private async upToDate(): Promise<boolean> {
    const archive = this.archiveInUse;
    const indexed = archive.indexedLogId();
    if (indexed === undefined || archive.logGaps.list().length > 0 || archive.missingIndexes().length > 0) return false;
    return (await this.store.log({ sinceId: indexed, limit: 1 })).length === 0;
  }

  async close(): Promise<void> {
    await this.syncing?.catch(() => undefined);
    await this.archiveInUse.close();
    if (this.temporaryDir) fs.rmSync(this.temporaryDir, { recursive: true, force: true });
  }
}

/** What a reader says when it answers from an index it may not catch up (CatchUpResult.behind). */
export function behindWarning(source: string, behind: NonNullable<CatchUpResult['behind']>): string {
  const more = behind.atLeast ? 'at least ' : '';
  return `the database user may not write ${source}: answering from it as it is, which is behind the crawl log by ${more}${behind.rows.toLocaleString('en')} log row${behind.rows === 1 ? '' : 's'} (${more}${behind.versions.toLocaleString('en')} version${behind.versions === 1 ? '' : 's'} or deletion${behind.versions === 1 ? '' : 's'} not in it); a user who may write there brings it up to date (datamonitor query --db as that user, or crawl --live-index)`;
}

/** Log rows counted at most per catch-up call of a read-only index (countBehind), and read per page. */
const MAX_BEHIND_ROWS = 50_000;
const BEHIND_PAGE = 5_000;

/** A log row the catch-up turns into a version (a capture with RDF) or a deletion (404, 410). */
export function changesIndex(e: CrawlLogEntry): boolean {
  return (e.rdfOffset !== undefined && !!e.warcFile) || e.status === 404 || e.status === 410;
}

function temporaryIndexDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'datamonitor-versions-'));
}

/** Whether this process may create or write `<dir>/versions.sqlite` (and its WAL beside it). */
function writable(dir: string): boolean {
  if (!writableDir(dir)) return false;
  try {
    const file = path.join(dir, VERSIONS_FILE);
    if (fs.existsSync(file)) fs.accessSync(file, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** SQLite's and the file system's ways of saying "you may not write here". */
function cannotWrite(e: unknown): boolean {
  const code = String((e as { code?: unknown }).code ?? '');
  return /^SQLITE_(READONLY|CANTOPEN|PERM|AUTH)/.test(code) || ['EACCES', 'EPERM', 'EROFS'].includes(code);
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** The versioned store of a data directory (`<data>/versions.sqlite`), or of a postgres:// crawl store's database. */
export function openVersionBackend(dataDir: string, db?: string): VersionBackend {
  return db && isPostgresUrl(db) ? new PgVersionArchive(db) : openVersionStore(dataDir);
}
