import * as ox from './oxigraph.ts';
import { analyseQuery, type QueryShape } from './sparql-text.ts';
import { evaluateShape, freeStore, graphIndexLine } from './sparql.ts';
import { nquadLine } from '../versions/sqlite-store.ts';
import type { ArchiveReads } from '../versions/backend.ts';
import { UserError } from '../util/errors.ts';
import type { AnswerChange, AnswerVersions, EvolutionOptions, QuadRow, SparqlJsonResults } from '../versions/types.ts';

type Answer = AnswerVersions['answer'];

/**
 * Evaluates a query at every change point of the archive (the instants some selected graph got a
 * version), moving one in-memory store forward by the deltas between points instead of reloading it.
 * Quads go in through `ox.parse` + add/delete, which keeps the archive's stable blank-node labels, so a
 * blank node removed at a later point is the same node that was added before.
 * With `opts.from`, the first point is the state at `from` itself (`baseline: true`), whether or not a
 * version falls there: what held at the window's start is the reference the window's changes are
 * measured against. The other points are the change points in (from, to].
 */
export function* answersOverTime(archive: ArchiveReads, sparql: string, opts: EvolutionOptions = {}): Generator<{ time: number; answers: Map<string, Answer>; baseline?: true }> {
  const shape = analyseQuery(sparql);
  const graphs = shape.hasDataset ? (shape.datasetGraphs ?? opts.graphs) : opts.graphs;
  const { from, to } = opts;
  if (from !== undefined && to !== undefined && to < from) throw new UserError('the window ends before it starts: --to is earlier than --from');
  const points = archive.changePoints({ graphs, from, to }).filter((t) => from === undefined || t > from);
  if (from !== undefined) points.unshift(from);
  const store = new ox.Store();
  const graphIndex = new Map<string, number>();
  let previous: number | undefined;
  try {
    for (const time of points) {
      if (previous === undefined) apply(store, archive.snapshot(time, { graphs }), 'add', graphIndex);
      else {
        const delta = archive.delta(previous, time, { graphs });
        apply(store, delta.removed, 'delete', graphIndex);
        apply(store, delta.added, 'add', graphIndex);
      }
      const answers = answersOf(store, shape);
      yield previous === undefined && from !== undefined ? { time, answers, baseline: true } : { time, answers };
      previous = time;
    }
  } finally {
    freeStore(store);
  }
}

/**
 * Adds or deletes rows; `graphIndex` counts the quads of each named graph of a document, so that its
 * `G dm:inDocument D` statement (as in a snapshot, see materialise) holds while G has a quad in D.
 */
function apply(store: ox.Store, rows: Iterable<QuadRow>, op: 'add' | 'delete', graphIndex: Map<string, number>): void {
  const lines: string[] = [];
  for (const r of rows) {
    lines.push(nquadLine(r));
    const index = graphIndexLine(r);
    if (!index) continue;
    const n = (graphIndex.get(index) ?? 0) + (op === 'add' ? 1 : -1);
    if (n <= 0) graphIndex.delete(index);
    else graphIndex.set(index, n);
    if ((op === 'add' && n === 1) || (op === 'delete' && n <= 0)) lines.push(index);
  }
  if (lines.length === 0) return;
  lines.push('');
  for (const q of ox.parse(lines.join('\n'), { format: 'application/n-quads', lenient: true })) store[op](q);
}

function answersOf(store: ox.Store, shape: QueryShape): Map<string, Answer> {
  const answers = new Map<string, Answer>();
  if (shape.form === 'construct' || shape.form === 'describe') {
    const text = evaluateShape(store, shape, 'application/n-triples') as string;
    for (const line of text.split('\n')) if (line) answers.set(line, { triple: line });
    return answers;
  }
  const json = JSON.parse(evaluateShape(store, shape, 'application/sparql-results+json') as string) as SparqlJsonResults;
  if (typeof json.boolean === 'boolean') {
    answers.set(String(json.boolean), { boolean: json.boolean });
    return answers;
  }
  // Solutions are a multiset: the n-th copy of a row is its own answer.
  for (const binding of json.results?.bindings ?? []) {
    const base = JSON.stringify(Object.keys(binding).sort().map((k) => [k, binding[k]]));
    let key = base;
    for (let n = 1; answers.has(key); n++) key = `${base}#${n}`;
    answers.set(key, binding);
  }
  return answers;
}

/**
 * Ver(Q): every answer the query had in the window, with the intervals and change points where it held.
 * An answer already holding at `from` is dated from `from` and flagged `clippedFrom`; one still holding at
 * `to` is cut there and flagged `clippedTo`, unless no version at all came after `to` (then it holds now).
 */
export async function queryVersions(archive: ArchiveReads, sparql: string, opts: EvolutionOptions = {}): Promise<AnswerVersions[]> {
  const byKey = new Map<string, AnswerVersions>();
  let previous = new Set<string>();
  for (const { time, answers, baseline } of answersOverTime(archive, sparql, opts)) {
    for (const [key, answer] of answers) {
      let entry = byKey.get(key);
      if (!entry) byKey.set(key, (entry = { answer, intervals: [], versions: [] }));
      if (!previous.has(key)) entry.intervals.push(baseline ? { from: time, clippedFrom: true } : { from: time });
      entry.versions.push(time);
    }
    for (const key of previous) if (!answers.has(key)) byKey.get(key)!.intervals.at(-1)!.to = time;
    previous = new Set(answers.keys());
  }
  if (opts.to !== undefined && previous.size > 0 && laterChanges(archive, sparql, opts)) {
    for (const key of previous) Object.assign(byKey.get(key)!.intervals.at(-1)!, { to: opts.to, clippedTo: true });
  }
  return [...byKey.values()];
}

/** Whether a selected graph got a version after the window's end (so an answer open at `to` may have ended). */
function laterChanges(archive: ArchiveReads, sparql: string, opts: EvolutionOptions): boolean {
  const shape = analyseQuery(sparql);
  const graphs = shape.hasDataset ? (shape.datasetGraphs ?? opts.graphs) : opts.graphs;
  return archive.changePoints({ graphs, from: opts.to! + 1 }).length > 0;
}

/**
 * Change(Q): the change points where the answers differ from the previous point. Without `from` the first
 * point counts if non-empty (against the empty archive); with it, the state at `from` is the reference and
 * only change points in (from, to] are reported.
 */
export async function queryChanges(archive: ArchiveReads, sparql: string, opts: EvolutionOptions = {}): Promise<AnswerChange[]> {
  const changes: AnswerChange[] = [];
  let previous = new Set<string>();
  for (const { time, answers, baseline } of answersOverTime(archive, sparql, opts)) {
    if (!baseline) {
      let added = 0;
      for (const key of answers.keys()) if (!previous.has(key)) added++;
      let removed = 0;
      for (const key of previous) if (!answers.has(key)) removed++;
      if (added + removed > 0) changes.push({ time, added, removed, answers: answers.size });
    }
    previous = new Set(answers.keys());
  }
  return changes;
}
