import type Database from 'better-sqlite3';

/**
 * What the count planner's term check (plan/count.ts sameTerms) found, kept in the store so that the next
 * process goes on from it instead of reading the whole dictionary again: that read was about half of a COUNT's
 * CPU in a new process at 100,000 documents (bench/SCALE-QUERY.md "Term check": 0.52–0.61× with the check saved).
 * Terms are never deleted but by a rebuild, which empties this too, so a check up to a term id
 * stays true: only the terms added since are read.
 */
export interface TermCheck {
  /** Every literal term with an id up to this one was checked. */
  after: number;
  /** False: the archive cannot be counted in SQL (too many classes, or a document names dm:graphs). */
  exact: boolean;
  /** Term ids the engine holds as one term: each id to its class's first id. */
  same: Map<number, number>;
}

/** The store side of a TermCheck: SQLite and PostgreSQL behind it, as every store seam. */
export interface TermCheckMemo {
  /** The check saved last; undefined: none (or the store predates it). */
  load(): TermCheck | undefined;
  /** The first term id recorded for each of these engine forms (the forms of terms checked before). */
  firstOfForms(forms: string[]): Array<number | undefined>;
  /**
   * Saves a check that went on from the saved one at `from` (0: none), with the forms it recorded that
   * were not saved yet. False, and nothing written, when another process saved first, or the store is read-only.
   */
  save(from: number, check: TermCheck, forms: Map<string, number>): boolean;
}

/** Meta keys of the saved check: its horizon, and 1 when the archive cannot be counted in SQL. */
export const CHECKED_AFTER = 'term_check_after';
export const CHECK_INEXACT = 'term_check_inexact';

export const SQLITE_TERM_CHECK_DDL = `
CREATE TABLE IF NOT EXISTS term_forms (h INTEGER NOT NULL, form TEXT NOT NULL, first INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS term_forms_by_hash ON term_forms (h);
CREATE TABLE IF NOT EXISTS term_classes (id INTEGER PRIMARY KEY, first INTEGER NOT NULL);
`;

export class SqliteTermCheckMemo implements TermCheckMemo {
  /** `hash`: the dictionary's (dialect.ts termHash), which the forms' `h` shares. */
  constructor(private readonly db: Database.Database, private readonly hash: (nt: string) => number) {}

  load(): TermCheck | undefined {
    try {
      const meta = new Map(this.db.prepare<[string, string], { key: string; value: number }>(
        'SELECT key, value FROM meta WHERE key IN (?, ?)').all(CHECKED_AFTER, CHECK_INEXACT).map((r) => [r.key, r.value]));
      const after = meta.get(CHECKED_AFTER);
      if (after === undefined) return undefined;
      const same = new Map(this.db.prepare<[], { id: number; first: number }>('SELECT id, first FROM term_classes').all().map((r) => [r.id, r.first]));
      return { after, exact: meta.get(CHECK_INEXACT) !== 1, same };
    } catch (e) {
      // A store opened read-only and written before the check was kept: check in memory, as before.
      if (/no such table/.test((e as Error).message)) return undefined;
      throw e;
    }
  }

  firstOfForms(forms: string[]): Array<number | undefined> {
    const stmt = this.db.prepare<[number], { form: string; first: number }>('SELECT form, first FROM term_forms WHERE h = ?');
    return forms.map((form) => stmt.all(this.hash(form)).find((r) => r.form === form)?.first);
  }

  save(from: number, check: TermCheck, forms: Map<string, number>): boolean {
    if (this.db.readonly) return false;
    const saved = this.db.transaction(() => {
      const now = this.db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE key = ?').get(CHECKED_AFTER)?.value ?? 0;
      if (now !== from) return false;
      const meta = this.db.prepare<[string, number]>('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
      meta.run(CHECKED_AFTER, check.after);
      if (!check.exact) {
        meta.run(CHECK_INEXACT, 1);
        this.db.exec('DELETE FROM term_forms; DELETE FROM term_classes;');
        return true;
      }
      const form = this.db.prepare<[number, string, number]>('INSERT INTO term_forms (h, form, first) VALUES (?, ?, ?)');
      for (const [nt, first] of forms) form.run(this.hash(nt), nt, first);
      const same = this.db.prepare<[number, number]>('INSERT OR REPLACE INTO term_classes (id, first) VALUES (?, ?)');
      for (const [id, first] of check.same) same.run(id, first);
      return true;
    });
    return saved.immediate();
  }
}
