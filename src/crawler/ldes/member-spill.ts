import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { removeStaleDirs } from '../scratch-dirs.ts';
import type { PageMember } from './page.ts';
import type { PageRecord } from './member-file.ts';

const { quad, namedNode, defaultGraph } = N3.DataFactory;

/** A member as the spill gives it back: as read from its page, with its place in the reading. */
export interface SpilledMember {
  m: PageMember;
  page: PageRecord;
  /** The order it was first read in (ties in time are archived in it). */
  order: number;
  /** Its time as keyed (NaN: none could be read with the description known when it was kept). */
  time: number;
}

/** Members written in one transaction: a row alone would pay a commit each. */
const COMMIT_EVERY = 2_000;
/** Members read back at a time: what memory holds of the spill while it is archived. */
const READ_BATCH = 500;

/**
 * The members of the streams one crawl reads, on disk until they are archived (Heritrix keeps its queues in BDB
 * for the same reason): the archive needs a document's versions in time order and a stream's pages need not come
 * in it, so every member must be read before the first can be archived, and a large publisher's stream (a million
 * members, several GB as quads) does not fit in memory. Each member is kept as it was read (its description and
 * named graph as N-Quads, blank nodes as labelled on the page, and the page it was read on), keyed by its time
 * and the order it was read in, so that the archive reads them back oldest first, a batch at a time, whatever
 * the stream's size. The key's time is read with the stream's description known then; `rekey` reads it again
 * when a later page completed that description. A file of SQLite in a directory of its own under the data
 * directory (`.ldes-<pid>-*`), made on the first member, removed by `close`; scratch space, not a record: a
 * crawl stopped before its members were archived reads its stream again (the immutable pages from the archive).
 */
export class MemberSpill {
  private db?: Database.Database;
  private dir?: string;
  private pending = 0;
  private count = 0;
  private stmts?: {
    put: Database.Statement;
    after: Database.Statement;
    remove: Database.Statement;
    ofStream: Database.Statement;
    setTime: Database.Statement;
  };

  constructor(private readonly dataDir: string) {}

  /** Members kept and not yet removed. */
  get size(): number {
    return this.count;
  }

  /** Keeps a member, keyed by `time` (NaN when it has none); false when a member of the same IRI is kept already. */
  put(m: PageMember, page: PageRecord, time: number): boolean {
    const s = this.open();
    const nquads = new N3.Writer({ format: 'N-Quads' }).quadsToString([...m.description, ...m.graph.map((q) => quad(q.subject, q.predicate, q.object, namedNode(m.id)))]);
    const done = s.put.run(m.id, m.stream, Number.isFinite(time) ? time : null, JSON.stringify(page), nquads);
    if (done.changes === 0) return false;
    this.count++;
    if (++this.pending >= COMMIT_EVERY) this.commit();
    return true;
  }

  /** The members with a time before `upTo` (all, without), oldest first, then in the order read; those without a time last. */
  *inOrder(upTo = Number.POSITIVE_INFINITY): Generator<SpilledMember[]> {
    if (!this.db) return;
    const s = this.stmts!;
    let last = { time: Number.NEGATIVE_INFINITY, ord: -1 };
    for (;;) {
      // Keyset pages: a cursor held open across the caller's awaits would keep the connection busy for `remove`.
      const rows = s.after.all(last.time, last.time, last.ord, upTo, READ_BATCH) as Row[];
      if (rows.length === 0) break;
      yield rows.map(member);
      const end = rows[rows.length - 1]!;
      last = { time: end.time!, ord: end.ord };
    }
    if (upTo !== Number.POSITIVE_INFINITY) return;
    let ord = -1;
    for (;;) {
      const rows = this.db.prepare('SELECT * FROM members WHERE time IS NULL AND ord > ? ORDER BY ord LIMIT ?').all(ord, READ_BATCH) as Row[];
      if (rows.length === 0) break;
      yield rows.map(member);
      ord = rows[rows.length - 1]!.ord;
    }
  }

  /** Forgets members archived (a stopped crawl's part it could archive). */
  remove(orders: readonly number[]): void {
    if (!this.db) return;
    for (const o of orders) this.count -= this.stmts!.remove.run(o).changes;
  }

  /** Keys again the members of `stream` by the time `timeOf` reads now (a later page completed the stream's description). */
  rekey(stream: string, timeOf: (m: PageMember) => number): void {
    if (!this.db) return;
    const s = this.stmts!;
    let ord = -1;
    for (;;) {
      const rows = s.ofStream.all(stream, ord, READ_BATCH) as Row[];
      if (rows.length === 0) break;
      for (const r of rows) {
        const t = timeOf(member(r).m);
        s.setTime.run(Number.isFinite(t) ? t : null, r.ord);
      }
      ord = rows[rows.length - 1]!.ord;
    }
  }

  close(): void {
    try {
      this.db?.close();
    } finally {
      this.db = undefined;
      if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
    }
  }

  private commit(): void {
    this.db!.exec('COMMIT; BEGIN');
    this.pending = 0;
  }

  private open(): NonNullable<MemberSpill['stmts']> {
    if (this.stmts) return this.stmts;
    removeStaleDirs(this.dataDir, '.ldes-');
    this.dir = fs.mkdtempSync(path.join(this.dataDir, `.ldes-${process.pid}-`));
    const db = (this.db = new Database(path.join(this.dir, 'members.sqlite')));
    // Scratch: no promise across a crash (the stream is read again), so no journal to pay for.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(`CREATE TABLE members (ord INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, stream TEXT NOT NULL, time REAL, page TEXT NOT NULL, nquads TEXT NOT NULL);
      CREATE INDEX members_time ON members (time, ord) WHERE time IS NOT NULL;
      CREATE INDEX members_stream ON members (stream, ord);
      BEGIN`);
    this.stmts = {
      put: db.prepare('INSERT OR IGNORE INTO members (id, stream, time, page, nquads) VALUES (?, ?, ?, ?, ?)'),
      after: db.prepare('SELECT * FROM members WHERE time IS NOT NULL AND (time > ? OR (time = ? AND ord > ?)) AND time < ? ORDER BY time, ord LIMIT ?'),
      remove: db.prepare('DELETE FROM members WHERE ord = ?'),
      ofStream: db.prepare('SELECT * FROM members WHERE stream = ? AND ord > ? ORDER BY ord LIMIT ?'),
      setTime: db.prepare('UPDATE members SET time = ? WHERE ord = ?'),
    };
    return this.stmts;
  }
}

interface Row {
  ord: number;
  id: string;
  stream: string;
  time: number | null;
  page: string;
  nquads: string;
}

/** A row as the member it was read as: its default-graph quads its description, those in its own graph its graph. */
function member(r: Row): SpilledMember {
  const description: Quad[] = [];
  const graph: Quad[] = [];
  // One parse keeps a blank node shared by the description and the graph one node; labels are kept as written.
  for (const q of new N3.Parser({ format: 'N-Quads', blankNodePrefix: '' }).parse(r.nquads)) {
    if (q.graph.termType === 'DefaultGraph') description.push(q);
    else graph.push(quad(q.subject, q.predicate, q.object, defaultGraph()));
  }
  return { m: { id: r.id, stream: r.stream, description, graph }, page: JSON.parse(r.page) as PageRecord, order: r.ord, time: r.time ?? Number.NaN };
}
