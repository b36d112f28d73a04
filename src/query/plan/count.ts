import * as ox from '../oxigraph.ts';
import { IriResolver, parseForPlan, type SparqlNode } from '../sparql-ast.ts';
import { IN_DOCUMENT_TERM, type CountReads } from '../../versions/backend.ts';
import { constantOf, type RowPattern } from './patterns.ts';
import { DM } from '../../archive/namespace.ts';
import { inEngineForm } from '../../versions/engine-form.ts';
import type { TermCheckMemo } from '../../versions/term-check-memo.ts';

/**
 * An aggregate the index answers by itself: `SELECT (COUNT(*) AS ?n) WHERE { s p o }` over one triple
 * pattern (COUNT(?v), COUNT(DISTINCT ?v) and COUNT(DISTINCT *) too), no GRAPH, FILTER, dataset or
 * solution modifier. Loading the snapshot to count it costs every quad valid at T in memory (issue #16:
 * the 30 s limit at 10,000 documents); SQL over the rows valid at T costs one index or table scan and no
 * quad in memory. The count must be the engine's over the snapshot, exactly:
 * - the snapshot is a set of quads in named graphs, its default graph their union without merging (a
 *   triple in two graphs counts twice), so a COUNT(*) counts distinct (s, p, o, graph), graph being the
 *   named graph of a TriG document's quad or else its document (rows of two documents naming one graph
 *   fall together);
 * - it also holds `G dm:inDocument D` in dm:graphs for every named graph (sparql.ts), which `?s ?p ?o`
 *   matches;
 * - the engine writes some literals in a canonical form ("0.00"^^xsd:decimal is "0", "x"@EN is "x"@en),
 *   so two archive terms may be one term there: then counting by term id would be wrong, and the
 *   archive is not counted in SQL at all (countable() below).
 */
export interface CountShape {
  pattern: RowPattern;
  /** COUNT(DISTINCT …): the pattern's positions whose terms are counted once; undefined for COUNT(*) / COUNT(?v). */
  distinct?: Array<'s' | 'p' | 'o'>;
  /** The pattern may match the `dm:inDocument` statements (its predicate is open, or is dm:inDocument). */
  inDocument: boolean;
  /** The projected variable's name. */
  variable: string;
}

const GRAPH_INDEX_NT = `<${DM}graphs>`;

type Node = SparqlNode;

/** The count a query asks for, when it is one the index can answer; else undefined (the engine answers it). */
export async function countShape(text: string): Promise<CountShape | undefined> {
  const ast: Node | undefined = await parseForPlan(text);
  if (ast?.type !== 'query' || ast.subType !== 'select' || ast.distinct || ast.reduced || ast.values) return undefined;
  if (Object.keys(ast.solutionModifiers ?? {}).length > 0 || (ast.datasets?.clauses ?? []).length > 0) return undefined;
  const [bind, ...more] = ast.variables ?? [];
  if (more.length > 0 || bind?.subType !== 'bind' || bind.variable?.subType !== 'variable') return undefined;
  const agg = bind.expression;
  if (agg?.subType !== 'aggregate' || agg.aggregation !== 'count' || (agg.expression ?? []).length !== 1) return undefined;
  const group = ast.where;
  if (group?.subType !== 'group' || group.patterns?.length !== 1) return undefined;
  const bgp = group.patterns[0];
  if (bgp?.subType !== 'bgp' || bgp.triples?.length !== 1) return undefined;
  const triple = bgp.triples[0];
  if (triple?.type !== 'triple' || triple.predicate?.type !== 'term') return undefined;

  const iris = new IriResolver(ast.context ?? []);
  const pattern: RowPattern = {};
  const vars = new Map<string, 's' | 'p' | 'o'>();
  for (const [key, term] of [['s', triple.subject], ['p', triple.predicate], ['o', triple.object]] as const) {
    if (term?.type !== 'term') return undefined;
    if (term.subType === 'variable') {
      // ?x ?p ?x asks for equal terms: not a plain range.
      if (vars.has(term.value)) return undefined;
      vars.set(term.value, key);
      continue;
    }
    // A blank node is a variable that cannot be projected; a typed literal matches by value: leave both to the engine.
    const nt = term.subType === 'blankNode' ? undefined : constantOf(term, iris);
    if (nt === undefined) return undefined;
    pattern[key] = nt;
  }
  const variable = bind.variable.value as string;
  if (vars.has(variable)) return undefined; // the engine's error, not ours to give
  const counted = agg.expression[0];
  let distinct: CountShape['distinct'];
  if (counted?.type === 'wildcard') {
    if (agg.distinct) distinct = [...vars.values()];
  } else if (counted?.type === 'term' && counted.subType === 'variable') {
    const position = vars.get(counted.value);
    if (position === undefined) return undefined; // COUNT of an unbound variable: 0, but the engine's to say
    if (agg.distinct) distinct = [position];
  } else {
    return undefined;
  }
  const inDocument = pattern.p === undefined || pattern.p === IN_DOCUMENT_TERM;
  return { pattern, distinct, inDocument, variable };
}

/**
 * The archive's literal terms that are one term to the engine (plan/count.ts's third point): each such
 * term's id mapped to one id of its class, for the count's SQL to count them as one; undefined when there
 * are too many to list in SQL, or when a document names dm:graphs (the graph of the `dm:inDocument`
 * statements): then the engine counts. Only terms added since the last check are read again: the check is
 * kept in the process and, where the store can (term-check-memo.ts), in the store for the next process.
 * Most terms are in the engine's own form already, told by their text, and only the rest go through the engine.
 */
export function sameTerms(archive: CountReads): Map<number, number> | undefined {
  let seen = checked.get(archive);
  if (!seen) {
    const memo = archive.termCheckMemo?.();
    const saved = memo?.load();
    seen = { after: saved?.after ?? 0, byForm: new Map(), fresh: new Map(), same: saved?.same ?? new Map(), exact: saved?.exact ?? true, memo, saving: true, savedAt: saved?.after ?? 0, resumed: saved !== undefined };
    checked.set(archive, seen);
  }
  if (!seen.exact) return undefined;
  if (archive.idsOfTerms([GRAPH_INDEX_NT])[0] !== undefined) return fail(seen);
  const CHUNK = 10_000;
  // A first pass reads only the terms not in the engine's form where the store can tell in SQL (SQLite): every
  // term up to the pass's horizon exists already, so one in the engine's form that is an odd term's form is
  // found by looking that form up. 4,000,000 literal terms became objects to keep 100,000 at 1,000,000 documents.
  if (seen.after === 0 && archive.oddLiteralTerms && archive.lastTermId) {
    const horizon = archive.lastTermId();
    for (let after = 0; ;) {
      const odd = archive.oddLiteralTerms(after, CHUNK, horizon);
      if (odd.length === 0) break;
      after = odd.at(-1)!.id;
      joinOdd(seen, archive, odd);
      if (seen.same.size > MAX_SAME) return fail(seen);
      if (odd.length < CHUNK) break;
    }
    seen.after = horizon;
  }
  for (;;) {
    const terms = archive.literalTerms(seen.after, CHUNK);
    if (terms.length === 0) break;
    seen.after = terms.at(-1)!.id;
    const odd = terms.filter((t) => !inEngineForm(t.nt));
    const isOdd = new Set(odd);
    const plain = terms.filter((t) => !isOdd.has(t));
    recall(seen, plain.map((t) => t.nt));
    // A term in the engine's form may be the form an odd term read earlier takes there. Only such forms are
    // remembered (an odd term's form that is a term already is found by looking it up in joinOdd): remembering
    // every literal held them all in memory, 852 MB at 1,000,000 documents (bench/SCALE-RUN.md).
    for (const t of plain) {
      const first = seen.byForm.get(t.nt);
      if (first !== undefined && first !== t.id) (seen.same.set(first, first), seen.same.set(t.id, first));
    }
    joinOdd(seen, archive, odd);
    if (seen.same.size > MAX_SAME) return fail(seen);
    if (terms.length < CHUNK) break;
  }
  remember(seen);
  return seen.same;
}

/** Saves what this process checked since the saved check, for the next one. */
function remember(seen: Checked): void {
  if (!seen.memo || !seen.saving || (seen.exact && seen.after === seen.savedAt)) return;
  if (seen.memo.save(seen.savedAt, { after: seen.after, exact: seen.exact, same: seen.same }, seen.fresh)) {
    seen.savedAt = seen.after;
    seen.fresh.clear();
  } else {
    // Another process saved first (or the store is read-only): this one goes on in memory, reading what is saved.
    seen.saving = false;
  }
}

/** Brings the saved first ids of these forms into memory: a process that went on from a saved check holds none. */
function recall(seen: Checked, forms: string[]): void {
  if (!seen.resumed || !seen.memo) return;
  const missing = [...new Set(forms)].filter((f) => !seen.byForm.has(f));
  if (missing.length === 0) return;
  seen.memo.firstOfForms(missing).forEach((first, i) => {
    if (first !== undefined) seen.byForm.set(missing[i]!, first);
  });
}

/**
 * Joins terms not in the engine's form to the terms of their engine form: the form each takes in the engine
 * (loaded to see), looked up in the dictionary, and "x"^^xsd:string to its plain twin "x" (plain literals are
 * not among the literal terms read).
 */
function joinOdd(seen: Checked, archive: CountReads, odd: Array<{ id: number; nt: string }>): void {
  if (odd.length === 0) return;
  const store = new ox.Store();
  let forms: Map<number, string>;
  try {
    store.load(odd.map((t) => `<x:${t.id}> <x:p> ${t.nt} .`).join('\n'), { format: 'application/n-triples', lenient: true });
    // A plain loop, not match().map(callback): each toString() is a call into WebAssembly, whose memory may grow
    // there; a grow detaches the old buffer, V8 then deoptimizes the code that assumed none would be, and Node 20's
    // V8 aborted ("Fatal error … unreachable code" in Deoptimizer::DoComputeBuiltinContinuation, signal 5) when the
    // frame so deoptimized was map's callback: 7 of 13 first COUNTs on a 1,000,000-document archive, 0 of 22 since
    // (bench/SCALE-QUERY.md, "Term check").
    forms = new Map();
    const quads = store.match();
    for (let i = 0; i < quads.length; i++) forms.set(Number(quads[i]!.subject.value.slice(2)), quads[i]!.object.toString());
  } finally {
    ox.freeStore(store);
  }
  const distinct = [...new Set(forms.values())];
  const strings = odd.filter((t) => t.nt.endsWith(XSD_STRING_SUFFIX));
  recall(seen, [...distinct, ...odd.map((t) => t.nt), ...strings.map((t) => t.nt.slice(0, -XSD_STRING_SUFFIX.length))]);
  const known = archive.idsOfTerms(distinct);
  distinct.forEach((form, i) => {
    if (known[i] !== undefined) join(seen, form, known[i]!);
  });
  for (const t of odd) join(seen, forms.get(t.id) ?? t.nt, t.id);
  const twins = archive.idsOfTerms(strings.map((t) => t.nt.slice(0, -XSD_STRING_SUFFIX.length)));
  strings.forEach((t, i) => {
    if (twins[i] !== undefined) join(seen, t.nt.slice(0, -XSD_STRING_SUFFIX.length), twins[i]!);
  });
}

/** More terms than this in classes of engine-equal terms: too long a CASE for the count's SQL. */
const MAX_SAME = 5_000;

function fail(seen: Checked): undefined {
  seen.exact = false;
  seen.byForm.clear();
  seen.fresh.clear();
  seen.same.clear();
  remember(seen);
  return undefined;
}

/** Records that term `id` is `form` to the engine; a second id of one form makes (or grows) a class. */
function join(seen: Checked, form: string, id: number): void {
  const first = seen.byForm.get(form);
  if (first === undefined) {
    seen.byForm.set(form, id);
    seen.fresh.set(form, id);
    return;
  }
  if (first === id) return;
  seen.same.set(first, first);
  seen.same.set(id, first);
}

const XSD_STRING_SUFFIX = '^^<http://www.w3.org/2001/XMLSchema#string>';
interface Checked {
  after: number;
  /** The engine's form of each odd term (and of each xsd:string twin) seen, to the first id that took it. */
  byForm: Map<string, number>;
  /** The entries of byForm this process made and has not saved. */
  fresh: Map<string, number>;
  same: Map<number, number>;
  exact: boolean;
  /** Where the check is kept between processes; `saving` false once another process saved first. */
  memo: TermCheckMemo | undefined;
  saving: boolean;
  /** The horizon of the saved check (0: none); `resumed`: this process went on from one. */
  savedAt: number;
  resumed: boolean;
}
const checked = new WeakMap<CountReads, Checked>();
