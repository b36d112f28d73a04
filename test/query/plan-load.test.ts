import { describe, it, expect } from 'vitest';
import * as ox from 'oxigraph';
import { StoreLoader } from '../../src/query/plan/load.ts';
import type { QuadRow } from '../../src/versions/types.ts';
import { linkedDataWeb } from '../../src/testkit/linked-data-web.ts';

/**
 * The loader's promise to the planner (plan-differential.test.ts checks the answers end to end): any
 * subset of a snapshot's rows goes into the store in the same relative order as in the whole snapshot,
 * also across row-id groups, so the engine answers a query the same way over both. Here the row ids
 * span four groups (the archive's ids past 65,536 without building an archive that size), blank-node
 * and plain rows interleaved as the generated Web has them.
 */
const web = linkedDataWeb({ documents: 60, hosts: 4 });
const GROUP = 2 ** 16;

function rows(): Array<[number, QuadRow]> {
  const out: Array<[number, QuadRow]> = [];
  // Ids start just before a group boundary and jump over whole groups, as a long-lived archive's do.
  let id = GROUP - 300;
  for (let i = 0; i < 60; i++) {
    for (const q of ox.parse(web.turtle(i), { format: 'text/turtle', base_iri: web.document(i) })) {
      out.push([id, { graph: web.document(i), s: q.subject.toString(), p: q.predicate.toString(), o: q.object.toString() }]);
      id += i === 30 ? GROUP : 7;
    }
  }
  return out;
}

function load(subset: Array<[number, QuadRow]>): ox.Store {
  const loader = new StoreLoader(() => undefined);
  for (const [id, row] of subset) loader.add(id, row);
  return loader.finish();
}

const order = (store: ox.Store): string[] => store.match(null, null, null, null).map((q) => q.toString());
const answers = (store: ox.Store): string[] =>
  String(store.query('SELECT ?s ?p ?o ?g WHERE { GRAPH ?g { ?s ?p ?o } }', { results_format: 'csv' })).trim().split('\r\n').slice(1);

describe('the query loader', () => {
  it('puts any subset of the rows in the order the whole snapshot has them, across row-id groups', () => {
    const all = rows();
    const groups = new Set(all.map(([id]) => Math.floor(id / GROUP)));
    expect(groups.size).toBeGreaterThanOrEqual(3);
    expect(all.filter(([, r]) => r.s.startsWith('_:') || r.o.startsWith('_:')).length).toBeGreaterThan(50);
    const whole = load(all);
    expect(whole.size).toBe(all.length);
    for (const keep of [(i: number) => i % 3 !== 0, (i: number) => i % 5 === 1, (i: number) => i > all.length / 2]) {
      const subset = all.filter((_, i) => keep(i));
      const part = load(subset);
      const inPart = new Set(order(part));
      expect(inPart.size).toBe(subset.length);
      expect(order(part)).toEqual(order(whole).filter((q) => inPart.has(q)));
      // What the engine answers follows that order: the planner's two ways print the same bytes.
      const partAnswers = answers(part);
      const inAnswers = new Set(partAnswers);
      expect(inAnswers.size).toBe(subset.length);
      expect(partAnswers).toEqual(answers(whole).filter((a) => inAnswers.has(a)));
    }
  });
});
