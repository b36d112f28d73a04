import type { SyncPg } from '../util/sync-pg.ts';
import { CHECK_INEXACT, CHECKED_AFTER, type TermCheck, type TermCheckMemo } from './term-check-memo.ts';
import { termHash } from '../rdf/terms.ts';

/** The term check's tables in PostgreSQL (term-check-memo.ts); small, joined by nothing: Citus reference tables. */
export const PG_TERM_CHECK_DDL = [
  'CREATE TABLE IF NOT EXISTS vs_term_forms (h bigint NOT NULL, form text NOT NULL, first bigint NOT NULL)',
  'CREATE INDEX IF NOT EXISTS vs_term_forms_by_hash ON vs_term_forms (h)',
  'CREATE TABLE IF NOT EXISTS vs_term_classes (id bigint PRIMARY KEY, first bigint NOT NULL)',
];

/** SQLSTATE of "relation does not exist" (a store built before these tables, opened by a user who may not add them). */
const UNDEFINED_TABLE = '42P01';
/** SQLSTATE of "permission denied". */
const INSUFFICIENT_PRIVILEGE = '42501';

export class PgTermCheckMemo implements TermCheckMemo {
  constructor(private readonly db: SyncPg, private readonly readonly: boolean) {}

  load(): TermCheck | undefined {
    try {
      const meta = new Map(this.db.query<{ key: string; value: string }>('SELECT key, value FROM vs_meta WHERE key = ANY($1)', [[CHECKED_AFTER, CHECK_INEXACT]])
        .map((r) => [r.key, Number(r.value)]));
      const after = meta.get(CHECKED_AFTER);
      if (after === undefined) return undefined;
      const same = new Map(this.db.query<{ id: string; first: string }>('SELECT id, first FROM vs_term_classes').map((r) => [Number(r.id), Number(r.first)]));
      return { after, exact: meta.get(CHECK_INEXACT) !== 1, same };
    } catch (e) {
      if ((e as { code?: string }).code === UNDEFINED_TABLE) return undefined;
      throw e;
    }
  }

  firstOfForms(forms: string[]): Array<number | undefined> {
    // One round trip for them all: a look-up a form was a round trip each.
    const rows = this.db.query<{ form: string; first: string }>(
      'SELECT form, first FROM vs_term_forms WHERE h = ANY($1::bigint[]) AND form = ANY($2::text[])', [forms.map(termHash), forms]);
    const first = new Map(rows.map((r) => [r.form, Number(r.first)]));
    return forms.map((form) => first.get(form));
  }

  save(from: number, check: TermCheck, forms: Map<string, number>): boolean {
    if (this.readonly) return false;
    // The claim: the saved horizon moves from `from` to check.after, or nothing is written (another process
    // saved first; one whose `from` was 0 finds the row there, one that went on from a saved check finds it
    // gone after a rebuild). One statement, so one transaction.
    const claim = from === 0
      ? `INSERT INTO vs_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE vs_meta.value = $3 RETURNING 1`
      : 'UPDATE vs_meta SET value = $2 WHERE key = $1 AND value = $3 RETURNING 1';
    const names = [...forms.keys()];
    try {
      const rows = this.db.query<{ n: number }>(
        `WITH claim AS (${claim}),
           inexact AS (INSERT INTO vs_meta (key, value) SELECT $4, 1 FROM claim WHERE NOT $5::boolean
             ON CONFLICT (key) DO UPDATE SET value = 1 RETURNING 1),
           forms AS (INSERT INTO vs_term_forms (h, form, first)
             SELECT * FROM unnest($6::bigint[], $7::text[], $8::bigint[]) WHERE EXISTS (SELECT 1 FROM claim) RETURNING 1),
           classes AS (INSERT INTO vs_term_classes (id, first)
             SELECT * FROM unnest($9::bigint[], $10::bigint[]) WHERE EXISTS (SELECT 1 FROM claim)
             ON CONFLICT (id) DO UPDATE SET first = excluded.first RETURNING 1)
         SELECT count(*)::int AS n FROM claim`,
        [CHECKED_AFTER, check.after, from, CHECK_INEXACT, check.exact, names.map(termHash), names, names.map((n) => forms.get(n)!),
          [...check.same.keys()], [...check.same.values()]]);
      return rows[0]!.n === 1;
    } catch (e) {
      // A user who may read the store but not these tables (grants made before they existed): check in memory.
      if ((e as { code?: string }).code === INSUFFICIENT_PRIVILEGE || (e as { code?: string }).code === UNDEFINED_TABLE) return false;
      throw e;
    }
  }
}
