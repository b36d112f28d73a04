import * as ox from '../../query/oxigraph.ts';
import type { Quad } from '@rdfjs/types';
import { analyseQuery, type QueryShape } from '../../query/sparql-text.ts';
import { evaluateShape, GRAPH_INDEX } from '../../query/sparql.ts';
import type { SparqlJsonTerm } from '../../versions/types.ts';
import { OptionError, UserError } from '../../util/errors.ts';
import { normalizeUrl } from '../../frontier/normalize.ts';
import { Knowledge, jsonTerm } from './knowledge.ts';
import { createSchedule, type EvaluationSchedule } from './schedule.ts';
import type { ArchiveRecall } from './archived.ts';
import { allVariablesQuery, queryIris, Traversal, TraversalPolicy, triplePatterns, type TriplePattern } from './traversal.ts';

/** The queries that drive a crawl (CrawlOptions.follow / until / answer). */
export interface DrivingQueries {
  /** SELECT: its IRI bindings are the only URLs followed. */
  follow?: string;
  /** ASK: the crawl stops once it is true. */
  until?: string;
  /** SELECT: link-traversal querying; the answer with its documents ends up in the summary. */
  answer?: string;
  /** When the queries run: 'auto' (growth), 'every', or a batch size. */
  followBatch?: string | number;
  /** --follow with `--order query`: the frontier fetches first the IRIs bound in the most solutions. */
  followOrder?: boolean;
  /** Bindings (--follow) or candidate links (--answer) followed from one document at most (FOLLOW_LIMITS). */
  followMaxPerDocument?: number;
  /** Bindings or candidate links followed in one crawl at most. */
  followMaxBindings?: number;
  /** Time the follow/until queries may take in one crawl, in all (ms); once spent they run no more. */
  followMaxQueryTimeMs?: number;
}

/**
 * The caps that keep a hostile or careless Web from flooding a query-driven crawl (`--max-docs`
 * bounds the fetching; these bound what is queued and the time spent querying). What a cap drops is
 * counted under the reason `follow-cap` and in the summary's `query.cut`.
 */
export const FOLLOW_LIMITS = {
  /** A page that lists a dataset's items can name hundreds; a thousand of one document is a flood. */
  perDocument: 1_000,
  perCrawl: 100_000,
  queryMs: 10 * 60_000,
} as const;

/** What the caps cut, and what the query bound that cannot be followed. */
export interface FollowCut {
  /** Bindings or links not followed: over the per-document cap, or over the per-crawl cap. */
  perDocument: number;
  perCrawl: number;
  /** Distinct literals and blank nodes the follow query bound in its last run (only IRIs can be fetched). */
  literals: number;
  blankNodes: number;
  /** The follow/until queries' time budget was spent: they ran no more. */
  queryBudget: boolean;
}

/** What the driving queries cost and found, for the summary. */
export interface QueryDrivenSummary {
  /** Times the follow/until queries ran over what the crawl had learnt, and how long they took in all. */
  evaluations: number;
  evaluationMs: number;
  schedule: string;
  /** Documents and quads learnt (the knowledge the queries ran over). */
  learnt: { documents: number; quads: number };
  /** Distinct IRIs the follow query bound (each offered to the scope once, where depth and filters apply). */
  bindings?: number;
  /** What the caps cut (FOLLOW_LIMITS), and the follow query's bindings that are not IRIs. */
  cut: FollowCut;
  /** --until: whether the question was answered, and after how many documents learnt. */
  answered?: boolean;
  answeredAfter?: number;
  /**
   * --answer over an archive that held documents already: those learnt from their archived versions
   * (fresh by the re-crawl policy), and those fetched again because the policy said they were stale.
   */
  archive?: { documents: number; stale: number };
  /** --answer: the solutions, each with the documents whose triples it used. */
  answer?: { vars: string[]; rows: Array<{ binding: Record<string, SparqlJsonTerm>; documents: string[] }> };
}

/** Where the driver sends the URLs it chose: the crawl's scope stage (depth and filters). */
export interface Offer {
  /** `force`: queued although the crawl knows it (a stale document fetched again). */
  offer(url: string, depth: number, vocabulary: boolean, force?: boolean): unknown;
}

/** Checks a driving query before anything is fetched: its form, and that the engine accepts it. */
function prepare(option: 'follow' | 'until' | 'answer', text: string, form: 'select' | 'ask'): QueryShape {
  let shape: QueryShape;
  try {
    shape = analyseQuery(text);
    if (shape.form !== form) throw new UserError(`must be a SPARQL ${form.toUpperCase()} query, got ${shape.form.toUpperCase()}`);
    // Run once on nothing: a syntax error or an unknown function is said now, not after the first fetch.
    const empty = new ox.Store();
    try {
      evaluateShape(empty, shape);
    } finally {
      (empty as unknown as { free?: () => void }).free?.();
    }
  } catch (e) {
    if (e instanceof UserError) throw new OptionError(option, e.message.startsWith('must be') ? e.message : `is not a query that can run: ${e.message}`);
    throw e;
  }
  return shape;
}

/** Validates the driving queries (OptionError naming the option); undefined when there are none. */
export async function validateDrivingQueries(o: DrivingQueries & { seeds?: string[] }): Promise<void> {
  if (o.follow !== undefined) prepare('follow', o.follow, 'select');
  if (o.until !== undefined) prepare('until', o.until, 'ask');
  if (o.answer !== undefined) {
    const shape = prepare('answer', o.answer, 'select');
    if (o.follow !== undefined) throw new OptionError('answer', 'chooses the links itself: give it or --follow, not both');
    if ((await traversalPlan(shape)).seeds.length === 0 && !o.seeds?.length) throw new OptionError('answer', 'names no http(s) resource to start from: put one in the query, or give seed URLs');
  }
  for (const k of ['followMaxPerDocument', 'followMaxBindings', 'followMaxQueryTimeMs'] as const) {
    const v = o[k];
    if (v !== undefined && !(Number.isFinite(v) && v >= (k === 'followMaxQueryTimeMs' ? 0 : 1))) throw new OptionError(k, `must be a number ≥ ${k === 'followMaxQueryTimeMs' ? 0 : 1}, got ${v}`);
  }
  if (o.followBatch !== undefined && !createSchedule(o.followBatch)) throw new OptionError('followBatch', `must be auto, every, or a number of documents ≥ 1, got ${JSON.stringify(o.followBatch)}`);
}

/** What --answer needs of its query's AST: its triple patterns, the IRIs it starts from, and the query with every variable projected. */
export interface TraversalPlan {
  patterns: TriplePattern[];
  seeds: string[];
  wide: string | undefined;
}

async function traversalPlan(shape: QueryShape): Promise<TraversalPlan> {
  let patterns: TriplePattern[];
  let wide: string | undefined;
  try {
    patterns = await triplePatterns(shape.text);
    wide = await allVariablesQuery(shape.text);
  } catch (e) {
    throw new OptionError('answer', `is not a query that can run: ${(e as Error).message.split('\n')[0]}`);
  }
  const seeds = queryIris(patterns).filter((iri) => normalizeUrl(iri));
  return { patterns, seeds, wide };
}

/**
 * The queries that steer a crawl, over one store of what it has learnt (Knowledge). The crawl's
 * learn stage adds each document; the crawl's loop asks `due` and runs `evaluate`, which offers the
 * follow query's new bindings and answers the until question.
 */
export class QueryDriver {
  readonly knowledge: Knowledge;
  /** The frontier ordering of --answer (its candidate links' scores), or of --follow with `--order query` (solutions per IRI). */
  readonly policy: TraversalPolicy | undefined;
  /** URLs --answer starts from: the query's http(s) IRIs. */
  readonly seeds: string[];
  private readonly follow?: QueryShape;
  private readonly until?: QueryShape;
  private readonly answerQuery?: QueryShape;
  private readonly patterns: TriplePattern[] = [];
  /** The answer query with every variable projected (allVariablesQuery), to find each row's documents. */
  private readonly wide?: string;
  private readonly traversal?: Traversal;
  /** Links the traversal credited while learning the current document, offered once it is learnt. */
  private credited = new Set<string>();
  private readonly schedule: EvaluationSchedule;
  /** Each IRI's smallest depth among the documents that mention it: a bound IRI's depth is one more. */
  private readonly mentioned = new Map<string, number>();
  /** The document (its number in learning order) that first mentioned each IRI: the one a binding is charged to. */
  private readonly mentionedBy = new Map<string, number>();
  /** Bindings or links followed per document (by number), for the per-document cap. */
  private readonly followedFrom = new Map<number, number>();
  private followed = 0;
  private readonly limits: { perDocument: number; perCrawl: number; queryMs: number };
  /** Called with the number of bindings or links a cap dropped (the crawl counts them as `follow-cap`). */
  onCut: (n: number) => void = () => undefined;
  private readonly bound = new Set<string>();
  private pending = 0;
  /** --answer over an archive: documents met again, answered from it unless stale (follow/archived.ts). */
  private recall?: ArchiveRecall;
  private recalls: Array<{ url: string; depth: number }> = [];
  /** URLs learnt or looked up in the archive this crawl: each is looked up once. */
  private readonly handled = new Set<string>();
  /** The deepest document learnt since the last run: the depth of a binding no document mentions. */
  private pendingDepth = 0;
  answered = false;
  readonly stats: QueryDrivenSummary;

  /** A driver for any of the queries; --answer's is parsed first (the parser loads on first use). */
  static async create(o: DrivingQueries, initial?: ox.Store): Promise<QueryDriver> {
    const plan = o.answer === undefined ? undefined : await traversalPlan(prepare('answer', o.answer, 'select'));
    return new QueryDriver(o, initial, plan);
  }

  /** `plan`: --answer's (QueryDriver.create makes it); a driver of --follow/--until only needs none. */
  constructor(o: DrivingQueries, initial?: ox.Store, plan?: TraversalPlan) {
    this.knowledge = new Knowledge(initial);
    // The archive's knowledge is unqueried too: the first chance to run goes to it (a crawl whose seeds
    // are all known already learns nothing new, and only the archive can give it somewhere to go).
    if (initial && initial.size > 0) this.pending = 1;
    if (o.follow !== undefined) this.follow = prepare('follow', o.follow, 'select');
    if (o.until !== undefined) this.until = prepare('until', o.until, 'ask');
    this.seeds = [];
    if (o.answer !== undefined) {
      if (!plan) throw new Error('QueryDriver: an answer query needs its plan (use QueryDriver.create)');
      this.answerQuery = prepare('answer', o.answer, 'select');
      this.patterns = plan.patterns;
      this.seeds = plan.seeds;
      this.wide = plan.wide;
      const policy = (this.policy = new TraversalPolicy());
      this.traversal = new Traversal(this.patterns, (iri, score) => {
        const url = policy.credit(iri, score);
        if (url) this.credited.add(url);
      });
    }
    if (this.follow && o.followOrder) this.policy = new TraversalPolicy();
    this.schedule = createSchedule(o.followBatch) as EvaluationSchedule;
    this.limits = { perDocument: o.followMaxPerDocument ?? FOLLOW_LIMITS.perDocument, perCrawl: o.followMaxBindings ?? FOLLOW_LIMITS.perCrawl, queryMs: o.followMaxQueryTimeMs ?? FOLLOW_LIMITS.queryMs };
    const cut: FollowCut = { perDocument: 0, perCrawl: 0, literals: 0, blankNodes: 0, queryBudget: false };
    this.stats = { evaluations: 0, evaluationMs: 0, schedule: this.schedule.name, learnt: { documents: 0, quads: 0 }, cut, ...(this.follow ? { bindings: 0 } : {}), ...(this.until ? { answered: false } : {}) };
  }

  /** Whether the crawl's links are chosen by a query rather than taken from every document. */
  get choosesLinks(): boolean {
    return Boolean(this.follow || this.answerQuery);
  }

  /**
   * Learns a captured document (at `depth`); under --answer, offers the IRIs of its triples that match
   * the query's patterns, scored first so the frontier ranks them as it queues them.
   */
  learn(url: string, quads: readonly Quad[], depth: number, scope: Offer): void {
    this.handled.add(url);
    this.knowledge.add(url, quads);
    const docNumber = this.knowledge.documents;
    this.pending++;
    this.pendingDepth = Math.max(this.pendingDepth, depth);
    if (this.follow) {
      for (const q of quads) {
        for (const t of [q.subject, q.object]) {
          if (t.termType !== 'NamedNode') continue;
          const d = this.mentioned.get(t.value);
          if (d === undefined) this.mentionedBy.set(t.value, docNumber);
          if (d === undefined || depth < d) this.mentioned.set(t.value, depth);
        }
      }
    }
    if (this.traversal && this.policy) {
      this.traversal.learn(quads);
      // The best links first when a cap cuts (a link the policy has not scored is a seed's redirect: first).
      const policy = this.policy;
      const links = [...this.credited].sort((a, b) => policy.priority(b) - policy.priority(a));
      // (A link raised by this document but found in an earlier one keeps its earlier depth: the seen test holds it.)
      for (const link of links) if (this.mayFollow(docNumber)) scope.offer(link, depth + 1, false);
      this.credited = new Set();
    }
  }

  /**
   * Lets --answer read the archive: a document the traversal meets that the crawl knows already (the
   * seen test would skip it) is learnt from its latest archived version, or fetched again when the
   * re-crawl policy says it is stale (follow/archived.ts).
   */
  useArchive(recall: ArchiveRecall): void {
    if (this.answerQuery) this.recall = recall;
  }

  /** Whether a document the crawl met again may be answered from the archive (the crawl's scope calls `known`). */
  get readsArchive(): boolean {
    return this.recall !== undefined;
  }

  /** A URL the scope found known already: looked up in the archive on the crawl loop's next turn. */
  known(url: string, depth: number): void {
    if (this.recall && !this.handled.has(url)) this.recalls.push({ url, depth });
  }

  /** Whether archive look-ups wait (the crawl loop runs `recallArchived` before it could end). */
  get recalling(): boolean {
    return this.recalls.length > 0;
  }

  /** Answers the documents met again from the archive; stale ones are offered to be fetched again. */
  async recallArchived(scope: Offer): Promise<void> {
    const recall = this.recall;
    if (!recall) return;
    const archive = (this.stats.archive ??= { documents: 0, stale: 0 });
    for (let next = this.recalls.shift(); next; next = this.recalls.shift()) {
      const { url, depth } = next;
      if (this.handled.has(url)) continue;
      this.handled.add(url);
      const r = await recall.recall(url);
      if (r.kind === 'stale') {
        archive.stale++;
        scope.offer(url, depth, false, true);
      } else if (r.kind === 'version') {
        if (this.handled.has(r.url) && r.url !== url) continue;
        archive.documents++;
        this.learn(r.url, r.quads, depth, scope);
      } else if (r.kind === 'redirect') {
        // The target is met like a link at the same depth: fetched if new, else looked up in turn.
        scope.offer(r.target, depth, false);
      }
    }
  }

  /** A document fetched again that came back unchanged (not parsed again): learnt from its archived version. */
  async learnUnchanged(url: string, depth: number, scope: Offer): Promise<void> {
    if (!this.recall || this.knowledge.has(url)) return;
    const r = await this.recall.recall(url, { ignoreStaleness: true });
    if (r.kind === 'version') this.learn(r.url, r.quads, depth, scope);
  }

  /**
   * Whether one more binding or link of document `doc` (0: none, the query minted it) may be followed;
   * counts it as followed, or as cut by the cap that says no.
   */
  private mayFollow(doc: number): boolean {
    const cut = this.stats.cut;
    if (this.followed >= this.limits.perCrawl) {
      cut.perCrawl++;
      this.onCut(1);
      return false;
    }
    if (doc > 0) {
      const n = this.followedFrom.get(doc) ?? 0;
      if (n >= this.limits.perDocument) {
        cut.perDocument++;
        this.onCut(1);
        return false;
      }
      this.followedFrom.set(doc, n + 1);
    }
    this.followed++;
    return true;
  }

  /** Whether the follow/until queries should run now (`starving`: nothing queued nor in flight to wait for). */
  due(starving: boolean): boolean {
    if (!this.follow && !this.until) return false;
    if (this.stats.evaluationMs >= this.limits.queryMs) {
      // Spent: a query that grows slow with what was learnt does not hold the crawl; what it chose is still fetched.
      this.stats.cut.queryBudget = true;
      return false;
    }
    // Past the per-crawl cap nothing more can be followed: only an --until question is still worth asking.
    if (!this.until && this.followed >= this.limits.perCrawl) return false;
    return this.schedule.due(this.pending, this.knowledge.documents, starving);
  }

  /** Runs the follow and until queries over what has been learnt; offers new bindings. Returns how many were offered. */
  evaluate(scope: Offer): number {
    const t0 = performance.now();
    let offered = 0;
    if (this.follow) {
      const others = { literals: 0, blankNodes: 0 };
      const solutions = this.policy ? new Map<string, number>() : undefined;
      const bound = this.knowledge.boundIris(this.follow, others, solutions);
      // Scored before they are offered, so the frontier ranks each as it queues it (and re-ranks queued ones).
      for (const [iri, n] of solutions ?? []) this.policy?.set(iri, n);
      for (const iri of bound) {
        if (this.bound.has(iri)) continue;
        // A dropped binding stays bound: the next run does not count it again.
        this.bound.add(iri);
        if (!this.mayFollow(this.mentionedBy.get(iri) ?? 0)) continue;
        scope.offer(iri, (this.mentioned.get(iri) ?? this.pendingDepth) + 1, false);
        offered++;
      }
      Object.assign(this.stats.cut, others);
      this.stats.bindings = this.bound.size;
    }
    if (this.until && !this.answered && this.knowledge.ask(this.until)) {
      this.answered = true;
      this.stats.answered = true;
      this.stats.answeredAfter = this.knowledge.documents;
    }
    this.pending = 0;
    this.pendingDepth = 0;
    this.stats.evaluations++;
    this.stats.evaluationMs += performance.now() - t0;
    return offered;
  }

  /** The summary's part; with --answer, runs the query over everything learnt and finds each solution's documents. */
  finish(): QueryDrivenSummary {
    if (this.pending > 0 && (this.follow || this.until) && this.stats.evaluationMs < this.limits.queryMs) this.evaluate({ offer: () => undefined });
    this.stats.learnt = { documents: this.knowledge.documents, quads: this.knowledge.quads };
    if (this.answerQuery) this.stats.answer = this.answer(this.answerQuery);
    return this.stats;
  }

  private answer(shape: QueryShape): NonNullable<QueryDrivenSummary['answer']> {
    const solutions = this.knowledge.select(shape);
    const vars = [...new Set(solutions.flatMap((s) => [...s.keys()]))];
    // Each row's documents: those of every full solution (all variables bound) that agrees with the row.
    const full = this.wide ? this.knowledge.select(analyseQuery(this.wide)) : solutions;
    const rowKey = (s: Map<string, ox.Term>) => vars.map((v) => { const t = s.get(v); return t ? `${t.termType}:${t.value}` : ''; }).join('\t');
    const docsOf = new Map<string, Set<string>>();
    for (const s of full) {
      const k = rowKey(s);
      let set = docsOf.get(k);
      if (!set) docsOf.set(k, (set = new Set()));
      for (const d of this.sources(s)) set.add(d);
    }
    const rows = solutions.map((s) => ({ binding: Object.fromEntries([...s].map(([k, v]) => [k, jsonTerm(v)])), documents: [...(docsOf.get(rowKey(s)) ?? [])].sort() }));
    return { vars, rows };
  }

  /**
   * The documents a solution's triples come from: each plain pattern with the solution's bindings put
   * in, looked up in the store. (Triples of a property path's inner steps are not traced.)
   */
  private sources(solution: Map<string, ox.Term>): string[] {
    const docs = new Set<string>();
    const term = (slot: TriplePattern['s']): ox.Term | null | undefined => {
      if ('iri' in slot) return ox.namedNode(slot.iri);
      if ('variable' in slot) return solution.get(slot.variable) ?? undefined;
      return undefined;
    };
    for (const t of this.patterns) {
      if ('iris' in t.p && t.p.path) continue;
      const s = term(t.s);
      const p = 'iris' in t.p ? ox.namedNode(t.p.iris[0]) : solution.get(t.p.variable);
      const o = 'literal' in t.o ? undefined : term(t.o);
      if (!s || !p || !o) continue;
      for (const g of this.knowledge.graphsOf(s, p, o)) if (g !== GRAPH_INDEX) docs.add(g);
    }
    return [...docs].sort();
  }

  close(): void {
    this.knowledge.close();
  }
}
