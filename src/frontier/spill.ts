import Database from 'better-sqlite3';
import path from 'node:path';
import type { ParkedClock, SpacingStore } from './politeness.ts';
import type { FrontierEntry } from './types.ts';

/** Where an origin stands in the frontier's heaps (host-queues.ts): nowhere, waiting for its time, or ready. */
export const Heap = { None: 0, Waiting: 1, Ready: 2 } as const;
export type Heap = (typeof Heap)[keyof typeof Heap];

/** An origin whose whole queue waits on disk, with its politeness state and its place in the frontier's heaps. */
export interface ParkedOrigin {
  origin: string;
  host: string;
  heap: Heap;
  /** Its key in that heap: the ready time it was queued with (Waiting), its best key then (Ready). */
  heapKey: number;
  /** Its entries in the spill. */
  count: number;
  clock: ParkedClock;
}

/**
 * Where a bounded frontier keeps what it has no room for in memory (Heritrix's BDB-backed work queues): the later
 * entries of an origin, taken back lowest key first, and whole origins, parked with their politeness state and
 * indexed by where they stood in the frontier's heaps, so that the frontier finds the origins whose time has come,
 * and the best of the ready ones, without loading the others. A spill is scratch space, not a record: the store
 * holds every queued URL for a resume, so a spill is thrown away with its crawl.
 */
export interface FrontierSpill extends SpacingStore, Closable {
  /** Keeps `entry` (its `origin` is not stored: the caller gives it back). Buffered; `take` sees it. */
  put(origin: string, entry: FrontierEntry): void;
  /** Removes and returns the `limit` entries of `origin` with the lowest keys (ties: in the order put). */
  take(origin: string, limit: number): FrontierEntry[];
  /** Parks an origin, or updates the parked origin. */
  park(p: ParkedOrigin): void;
  /** The parked origin, left parked. */
  parked(origin: string): ParkedOrigin | undefined;
  /** Forgets a parked origin (its entries stay, for `take`). */
  unpark(origin: string): void;
  /** The lowest key among the origin's entries here. */
  head(origin: string): number | undefined;
  /** Up to `limit` parked origins waiting for a ready time at or before `now`, soonest first. */
  due(now: number, limit: number): ParkedOrigin[];
  /** The parked ready origin of the lowest key, when that key is below `below`. */
  best(below?: number): ParkedOrigin | undefined;
  /** The parked origins with entries that wait on a deferral or back-off past `now`. */
  deferred(now: number): ParkedOrigin[];
  /** Whether `origin` was never given to `know` before (counts the origins a frontier has seen). */
  know(origin: string): boolean;
}

interface Closable {
  close(): void;
}

/** Rows written in one transaction: a row alone would pay a commit each. */
const PUT_BATCH = 1_000;
/**
 * Writes between commits. The spill writes all the time (a row a parked origin, a row an origin brought back) and
 * keeps no promise across a crash, so it stays in one transaction: a commit each cost 25-55 us a statement.
 */
const COMMIT_EVERY = 10_000;
/** Origin ids cached in memory: bounded, the names table has them all. */
const ID_CACHE = 65_536;

type Row = { origin: string; host: string; heap: number; hk: number; cnt: number; c: string };

/**
 * The lowest (key, id) among the parked origins of one heap, kept in memory: a pop that finds no parked origin due
 * or better than its own asks the file nothing. `key` never exceeds the lowest key there; `stale` when the row that
 * held it left or moved, and then the next look that needs it exact asks the file (its index on (heap, key)).
 */
class Lowest {
  key = Number.POSITIVE_INFINITY;
  id = -1;
  stale = false;

  /** Row `id` now stands in this heap at `key`, or not in it (undefined). */
  note(id: number, key: number | undefined): void {
    if (key !== undefined && (key < this.key || (!this.stale && key === this.key && id < this.id))) {
      // Every other row's key is at least the old one, stale or not: this one is the lowest.
      this.key = key;
      this.id = id;
      this.stale = false;
    } else if (id === this.id && key !== this.key) {
      this.stale = true;
    }
  }

  set(row: { id: number; hk: number } | undefined): void {
    this.key = row?.hk ?? Number.POSITIVE_INFINITY;
    this.id = row?.id ?? -1;
    this.stale = false;
  }
}

/**
 * The spill in a SQLite file: entries in one B-tree ordered by (origin, key, arrival); parked origins by id, with an
 * index on (heap, key) and one on the deferral of those with entries (the progress line's); hostnames' spacing; the robots.txt answers
 * a crawl of many hosts has no room for in memory. Opened on its first write: most crawls never fill the memory.
 */
export class SqliteFrontierSpill implements FrontierSpill {
  private db: Database.Database | undefined;
  private readonly ids = new Map<string, number>();
  private pending: Array<[number, number, number, string]> = [];
  private arrival = 0;
  private writes = 0;
  private readonly waiting = new Lowest();
  private readonly ready = new Lowest();
  /** At least the latest deferral among parked origins with entries: a progress tick past it asks the file nothing. */
  private latestDeferral = Number.NEGATIVE_INFINITY;
  private st!: Record<'insert' | 'select' | 'head' | 'remove' | 'idOf' | 'newId' | 'park' | 'parked' | 'unpark' | 'due' | 'lowest' | 'deferred' | 'spacing' | 'setSpacing' | 'robots' | 'setRobots', Database.Statement>;
  private writeBatch!: (rows: Array<[number, number, number, string]>) => void;

  /** `dir` is where the file goes, or a function that makes that directory when the spill is first written. */
  constructor(private readonly dir: string | (() => string)) {}

  private open(): Database.Database {
    if (this.db) return this.db;
    const db = new Database(path.join(typeof this.dir === 'string' ? this.dir : this.dir(), 'frontier.sqlite'));
    // Scratch data, rebuilt from the store by a resume: a crash may lose it, so no journal and no fsync.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(`CREATE TABLE IF NOT EXISTS q (o INTEGER NOT NULL, k REAL NOT NULL, n INTEGER NOT NULL, e TEXT NOT NULL, PRIMARY KEY (o, k, n)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS names (id INTEGER PRIMARY KEY, origin TEXT NOT NULL UNIQUE);
      CREATE TABLE IF NOT EXISTS parked (id INTEGER PRIMARY KEY, host TEXT NOT NULL, heap INTEGER NOT NULL, hk REAL NOT NULL, cnt INTEGER NOT NULL, nb REAL NOT NULL, c TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS parked_heap ON parked (heap, hk);
      CREATE INDEX IF NOT EXISTS parked_deferred ON parked (nb) WHERE cnt > 0;
      CREATE TABLE IF NOT EXISTS spacing (hostname TEXT PRIMARY KEY, last REAL NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS robots (origin TEXT PRIMARY KEY, r TEXT NOT NULL) WITHOUT ROWID;`);
    const cols = 'n.origin, p.host, p.heap, p.hk, p.cnt, p.c FROM parked p JOIN names n ON n.id = p.id';
    this.st = {
      insert: db.prepare('INSERT INTO q (o, k, n, e) VALUES (?, ?, ?, ?)'),
      select: db.prepare('SELECT k, n, e FROM q WHERE o = ? ORDER BY k, n LIMIT ?'),
      head: db.prepare('SELECT k FROM q WHERE o = ? ORDER BY k, n LIMIT 1').pluck(),
      remove: db.prepare('DELETE FROM q WHERE o = ? AND (k, n) <= (?, ?)'),
      idOf: db.prepare('SELECT id FROM names WHERE origin = ?').pluck(),
      newId: db.prepare('INSERT INTO names (origin) VALUES (?)'),
      park: db.prepare('INSERT OR REPLACE INTO parked (id, host, heap, hk, cnt, nb, c) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      parked: db.prepare(`SELECT ${cols} WHERE p.id = ?`),
      unpark: db.prepare('DELETE FROM parked WHERE id = ?'),
      due: db.prepare(`SELECT ${cols} WHERE p.heap = ${Heap.Waiting} AND p.hk <= ? ORDER BY p.hk LIMIT ?`),
      lowest: db.prepare('SELECT id, hk FROM parked WHERE heap = ? ORDER BY hk, id LIMIT 1'),
      deferred: db.prepare(`SELECT ${cols} WHERE p.nb > ? AND p.cnt > 0`),
      spacing: db.prepare('SELECT last FROM spacing WHERE hostname = ?').pluck(),
      setSpacing: db.prepare('INSERT OR REPLACE INTO spacing (hostname, last) VALUES (?, ?)'),
      robots: db.prepare('SELECT r FROM robots WHERE origin = ?').pluck(),
      setRobots: db.prepare('INSERT OR REPLACE INTO robots (origin, r) VALUES (?, ?)'),
    };
    this.writeBatch = db.transaction((rows) => {
      for (const r of rows) this.st.insert.run(r);
    });
    db.exec('BEGIN');
    return (this.db = db);
  }

  /** Runs a write, committing every COMMIT_EVERY of them. */
  private write(st: Database.Statement, ...params: unknown[]): Database.RunResult {
    const r = st.run(...params);
    if (++this.writes >= COMMIT_EVERY) {
      this.writes = 0;
      this.db!.exec('COMMIT; BEGIN');
    }
    return r;
  }

  /** The origin's id; undefined when it has none and `make` is false. */
  private id(origin: string, make: boolean): number | undefined {
    let id = this.ids.get(origin);
    if (id !== undefined) return id;
    if (!this.db && !make) return undefined;
    this.open();
    id = this.st.idOf.get(origin) as number | undefined;
    if (id === undefined && make) id = Number(this.write(this.st.newId, origin).lastInsertRowid);
    if (id !== undefined) {
      if (this.ids.size >= ID_CACHE) this.ids.clear();
      this.ids.set(origin, id);
    }
    return id;
  }

  put(origin: string, entry: FrontierEntry): void {
    const id = this.id(origin, true)!;
    const { origin: _, ...rest } = entry;
    this.pending.push([id, entry.key, this.arrival++, JSON.stringify(rest)]);
    if (this.pending.length >= PUT_BATCH) this.flush();
  }

  take(origin: string, limit: number): FrontierEntry[] {
    const id = this.id(origin, false);
    if (id === undefined || limit <= 0) return [];
    this.flush();
    const rows = this.st.select.all(id, Number.isFinite(limit) ? limit : -1) as Array<{ k: number; n: number; e: string }>;
    if (rows.length === 0) return [];
    const last = rows.at(-1)!;
    this.write(this.st.remove, id, last.k, last.n);
    return rows.map((r) => Object.assign(JSON.parse(r.e) as FrontierEntry, { origin }));
  }

  park(p: ParkedOrigin): void {
    const id = this.id(p.origin, true)!;
    this.write(this.st.park, id, p.host, p.heap, p.heapKey, p.count, p.clock.notBefore, JSON.stringify(p.clock));
    this.waiting.note(id, p.heap === Heap.Waiting ? p.heapKey : undefined);
    this.ready.note(id, p.heap === Heap.Ready ? p.heapKey : undefined);
    if (p.count > 0 && p.clock.notBefore > this.latestDeferral) this.latestDeferral = p.clock.notBefore;
  }

  parked(origin: string): ParkedOrigin | undefined {
    const id = this.id(origin, false);
    const row = id === undefined ? undefined : (this.st.parked.get(id) as Row | undefined);
    return row && parkedOf(row);
  }

  unpark(origin: string): void {
    const id = this.id(origin, false);
    if (id === undefined) return;
    this.write(this.st.unpark, id);
    this.waiting.note(id, undefined);
    this.ready.note(id, undefined);
  }

  head(origin: string): number | undefined {
    const id = this.id(origin, false);
    if (id === undefined) return undefined;
    this.flush();
    return this.st.head.get(id) as number | undefined;
  }

  due(now: number, limit: number): ParkedOrigin[] {
    // `key` is a lower bound even when stale: past `now`, nothing is due (Infinity: none is waiting).
    if (this.waiting.key > now || this.waiting.key === Number.POSITIVE_INFINITY) return [];
    const low = this.lowest(this.waiting, Heap.Waiting);
    if (low > now || low === Number.POSITIVE_INFINITY) return [];
    return (this.st.due.all(now, limit) as Row[]).map(parkedOf);
  }

  best(below = Number.POSITIVE_INFINITY): ParkedOrigin | undefined {
    if (this.ready.key >= below || this.lowest(this.ready, Heap.Ready) >= below) return undefined;
    const row = this.st.parked.get(this.ready.id) as Row | undefined;
    return row && parkedOf(row);
  }

  /** The lowest key in `heap`'s parked origins (Infinity: none), from memory unless a row that held it left. */
  private lowest(l: Lowest, heap: Heap): number {
    if (l.stale && this.db) l.set(this.st.lowest.get(heap) as { id: number; hk: number } | undefined);
    return l.key;
  }

  deferred(now: number): ParkedOrigin[] {
    if (!this.db || this.latestDeferral <= now) return [];
    const rows = (this.st.deferred.all(now) as Row[]).map(parkedOf);
    // Every parked origin with entries that is not among these is free by `now`.
    this.latestDeferral = rows.reduce((m, p) => Math.max(m, p.clock.notBefore), now);
    return rows;
  }

  know(origin: string): boolean {
    if (this.id(origin, false) !== undefined) return false;
    this.id(origin, true);
    return true;
  }

  spacing(hostname: string): number | undefined {
    return this.db ? (this.st.spacing.get(hostname) as number | undefined) : undefined;
  }

  setSpacing(hostname: string, lastStart: number): void {
    this.open();
    this.write(this.st.setSpacing, hostname, lastStart);
  }

  /** An origin's robots.txt answer that left memory (src/fetch/robots.ts: RobotsStore). */
  robots(origin: string): string | undefined {
    return this.db ? (this.st.robots.get(origin) as string | undefined) : undefined;
  }

  setRobots(origin: string, record: string): void {
    this.open();
    this.write(this.st.setRobots, origin, record);
  }

  close(): void {
    this.pending = [];
    this.db?.close();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    // Cleared only once written: a failed write (a full disk) leaves the rows here, and the error to the crawl.
    this.writeBatch(this.pending);
    this.pending = [];
  }
}

function parkedOf(r: Row): ParkedOrigin {
  return { origin: r.origin, host: r.host, heap: r.heap as Heap, heapKey: r.hk, count: r.cnt, clock: JSON.parse(r.c) as ParkedClock };
}
