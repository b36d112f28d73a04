import { literalTerm } from './dialect.ts';
import type Database from 'better-sqlite3';

/** A term row's whole text. */
export const TERM_TEXT = `CASE WHEN x IS NULL THEN body
  WHEN x > 0 THEN (SELECT text FROM term_affixes WHERE id = x) || body
  ELSE body || (SELECT text FROM term_affixes WHERE id = -x) END`;

/**
 * SQLite's term dictionary, coded. Most of an IRI is its namespace (`<http://data4.example/doc/` of
 * `<http://data4.example/doc/16104>`), and most of a typed literal its datatype (`^^<http://www.w3.org/2001/XMLSchema#integer>`,
 * 44 bytes of `"80613"^^<…>`): each is stored once in `term_affixes`, and a term row keeps its id and the
 * rest. `x` > 0 is a prefix, `x` < 0 a suffix (its id negated), NULL none (blank nodes, plain and
 * language-tagged literals). This is HDT's dictionary idea kept as plain SQL: the `terms` view gives every
 * term whole, so every read (and anyone with `sqlite3`) reads `terms (id, h, nt)` as before.
 * bench/ARCHIVE-SIZE.md, "The dictionary coded", has the bytes and what the reads pay.
 *
 * `h` is 32 bits of the term's SHA-1 (4 bytes in a SQLite record, where 48 took 6, in the row and in its
 * index): a look-up by hash compares the text, so a collision costs a second row read, one in thousands
 * at millions of terms. PostgreSQL's dictionary keeps 48 bits (pg-schema.ts).
 */
export const TERM_ROWS_DDL = `
CREATE TABLE IF NOT EXISTS term_affixes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS term_rows (id INTEGER PRIMARY KEY, h INTEGER NOT NULL, x INTEGER, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS term_rows_by_hash ON term_rows (h);
CREATE VIEW IF NOT EXISTS terms (id, h, nt) AS SELECT id, h, ${TERM_TEXT} FROM term_rows;`;

/**
 * The literal terms with a datatype or a language tag (dialect.ts literalTermsSql), told by the rows as stored: a
 * suffix is a datatype, and only terms kept whole need their text read (through the view, each term's text was
 * made three times: the first count of a 1,000,000-document archive read its 13 M terms in 3.0 s, 1.5 s so).
 */
export function codedLiteralTermsSql(where: string): string {
  return `SELECT id, ${TERM_TEXT} AS nt FROM term_rows WHERE ${where} AND (x < 0 OR (x IS NULL AND ${literalTerm('body')}))`;
}

/** The 32-bit hash (rdf/terms.ts termHash32) of a term whose 48-bit one (rdf/terms.ts termHash) is `h`: its first four bytes, signed. */
export function hash48To32(h: number): number {
  return Math.floor(h / 65536) | 0;
}

/** hash48To32 in SQL, for the hashes kept beside the dictionary (term-check-memo.ts). */
const HASH_48_TO_32_SQL = (column: string) => `(${column} >> 16) - ((${column} >> 47) << 32)`;

/** Shorter than this, an affix saves less than its id and its row cost. */
const MIN_AFFIX = 8;

/**
 * A term as (affix, side, body): an IRI split after its last `/` or `#` before its end (so that `…/a/>` keeps
 * `a/` with it and shares `…/` with its siblings), a typed literal before its `^^`. undefined: kept whole.
 */
export function splitTerm(nt: string): { affix: string; suffix: boolean; body: string } | undefined {
  const first = nt.charCodeAt(0);
  if (first === 60 /* < */) {
    const cut = Math.max(nt.lastIndexOf('/', nt.length - 3), nt.lastIndexOf('#', nt.length - 3)) + 1;
    return cut >= MIN_AFFIX ? { affix: nt.slice(0, cut), suffix: false, body: nt.slice(cut) } : undefined;
  }
  if (first === 34 /* " */ && nt.charCodeAt(nt.length - 1) === 62 /* > */) {
    const cut = nt.lastIndexOf('"^^<') + 1;
    return cut > 0 && nt.length - cut >= MIN_AFFIX ? { affix: nt.slice(cut), suffix: true, body: nt.slice(0, cut) } : undefined;
  }
  return undefined;
}

/** Whether the file's dictionary is coded (TERM_ROWS_DDL): false for a file written before, read as it is. */
export function hasCodedTerms(db: Database.Database): boolean {
  return db.prepare<[], { type: string }>("SELECT type FROM sqlite_master WHERE name = 'terms'").get()?.type !== 'table';
}

/**
 * The writer's affixes: a term coded (`code`) with the id of its affix, found or added. Affixes are only ever
 * added, never deleted (an index emptied to be built again keeps them), so an id found once names the same
 * text for the file's life, whichever process wrote it. Those the open write transaction added are apart
 * until it commits: a rollback takes them back.
 */
export class TermAffixes {
  private readonly ids = new Map<string, number>();
  private pending = new Map<string, number>();

  constructor(private readonly db: Database.Database) {}

  /** A term row's `x` and `body` (inside the write transaction: a new affix is inserted at once). */
  code(nt: string): [x: number | null, body: string] {
    const split = splitTerm(nt);
    if (!split) return [null, nt];
    let id = this.ids.get(split.affix) ?? this.pending.get(split.affix);
    if (id === undefined) {
      id = this.db.prepare<[string], { id: number }>('SELECT id FROM term_affixes WHERE text = ?').get(split.affix)?.id
        ?? Number(this.db.prepare('INSERT INTO term_affixes (text) VALUES (?)').run(split.affix).lastInsertRowid);
      this.pending.set(split.affix, id);
    }
    return [split.suffix ? -id : id, split.body];
  }

  commit(): void {
    for (const [text, id] of this.pending) this.ids.set(text, id);
    this.pending = new Map();
  }

  rollback(): void {
    this.pending = new Map();
  }
}

/**
 * Codes the dictionary of a file written before (TERM_ROWS_DDL), in one transaction: every term's row
 * rewritten with its affix and its 32-bit hash, the hashes of the count's term check (term-check-memo.ts)
 * cut to theirs. Ids are kept, so no quad row changes. The pages freed are reused by later rows.
 */
export function codeTerms(db: Database.Database, say: (line: string) => void): void {
  if (hasCodedTerms(db)) return;
  const n = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM terms').get()!.n;
  say(`coding the term dictionary of ${db.name} (once: ${n.toLocaleString('en')} terms)…`);
  const t0 = Date.now();
  db.transaction(() => {
    db.exec('ALTER TABLE terms RENAME TO terms_whole; DROP INDEX IF EXISTS terms_by_hash');
    db.exec(TERM_ROWS_DDL.replace(/CREATE INDEX[^;]*;/, ''));
    const affixes = new TermAffixes(db);
    const put = db.prepare<[number, number, number | null, string]>('INSERT INTO term_rows (id, h, x, body) VALUES (?, ?, ?, ?)');
    // In chunks: better-sqlite3 runs no statement while another one's rows are being read.
    const chunk = db.prepare<[number], [number, number, string]>('SELECT id, h, nt FROM terms_whole WHERE id > ? ORDER BY id LIMIT 10000').raw();
    for (let rows = chunk.all(0); rows.length > 0; rows = chunk.all(rows.at(-1)![0])) {
      for (const [id, h, nt] of rows) put.run(id, hash48To32(h), ...affixes.code(nt));
    }
    db.exec(`DROP TABLE terms_whole; UPDATE term_forms SET h = ${HASH_48_TO_32_SQL('h')}`);
    db.exec(TERM_ROWS_DDL);
  })();
  const free = (db.pragma('freelist_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
  say(`coded the term dictionary in ${((Date.now() - t0) / 1000).toFixed(1)} s; the ${(free / 1048576).toFixed(1)} MiB it freed are reused by later rows (a VACUUM of the file gives them back at once)`);
}
