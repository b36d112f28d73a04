import { UserError } from '../util/errors.ts';
import { COMMON_PREFIXES } from './prefixes.ts';
import type { QueryForm } from '../versions/types.ts';

/**
 * Just enough lexing of a SPARQL request to decide, before running it, what it is (a query form or a
 * refused update) and which graphs its FROM / FROM NAMED clauses name: the snapshot then loads only those.
 * Strings, IRIs and comments are skipped properly so that keywords inside them are never mistaken.
 */
export interface QueryShape {
  form: QueryForm;
  /** Whether the query has a dataset clause (FROM / FROM NAMED): it then defines the dataset itself. */
  hasDataset: boolean;
  /** The absolute graph IRIs of the dataset clause; undefined if some could not be resolved here. */
  datasetGraphs?: string[];
  /**
   * The text to run: the query with a PREFIX declaration (on its first line, so that line numbers in the
   * engine's messages stay right) for each common prefix (COMMON_PREFIXES) it uses without declaring.
   */
  text: string;
  /** How many characters were put before the query's first line. */
  prelude: number;
  /** Prefixes the query uses but neither declares nor finds among the common ones (without the colon). */
  unknownPrefixes: string[];
  /**
   * For `SELECT *`: the query's variables in the order they first appear. The engine lists the columns of
   * `SELECT *` alphabetically; Jena, Fuseki and the SPARQL results people compare with list them in order of
   * appearance, so the columns are reordered to this (the engine's set of columns is kept as it is).
   */
  variableOrder?: string[];
}

const UPDATE_WORDS = new Set(['INSERT', 'DELETE', 'LOAD', 'CLEAR', 'CREATE', 'DROP', 'COPY', 'MOVE', 'ADD', 'WITH']);
const FORMS = new Set(['SELECT', 'ASK', 'CONSTRUCT', 'DESCRIBE']);

/**
 * One token of a query text: a word (keywords, variables, prefixed names, numbers, operators), an IRI
 * (its text without the angle brackets), a string (with its quotes) or one character of punctuation.
 * `start` and `end` are its offsets in the text. A string left open ends at its line's end (a short
 * string) or at the text's end (a long one), and says so (`open`).
 */
export interface Token { kind: 'iri' | 'word' | 'punct' | 'string'; text: string; start: number; end: number; open?: true }

/** A query text and its tokens: lexed once, for the limits checked before the engine and for analyseQuery. */
export interface LexedQuery { readonly text: string; readonly tokens: readonly Token[] }

/** A variable inside a lexer word (`?x`, `$x`, also in `ex:p/?x` or `?x=?y` which the lexer keeps as one word). */
const VARIABLE = /[?$]([A-Za-z0-9_\u00B7\u00C0-\uFFFF]+)/g;
const IRIREF = /<[^<>"{}|^`\\\u0000-\u0020]*>/y;
const WORD = /[^\s{}()<>"'#,;.]+(?:\.[^\s{}()<>"'#,;.]+)*/y;

/**
 * The project's one SPARQL lexer: strings, IRIs and comments skipped properly, so that nothing inside
 * them is read as a keyword, a bracket or an operator (analyseQuery, nestingDepth, syntax-error.ts).
 */
export function lexQuery(text: string): LexedQuery {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) { i++; continue; }
    if (c === '#') { const nl = text.indexOf('\n', i); i = nl < 0 ? text.length : nl + 1; continue; }
    if (c === '"' || c === "'") {
      const long = text.startsWith(c.repeat(3), i);
      const close = long ? c.repeat(3) : c;
      let j = i + close.length;
      // A short string holds no line break (STRING_LITERAL1/2): one that meets it is open.
      while (j < text.length && !text.startsWith(close, j) && (long || !isLineBreak(text[j]!))) j += text[j] === '\\' && (long || !isLineBreak(text[j + 1] ?? '')) ? 2 : 1;
      const closed = text.startsWith(close, j);
      const end = Math.min(text.length, closed ? j + close.length : j);
      tokens.push(closed ? { kind: 'string', text: text.slice(i, end), start: i, end } : { kind: 'string', text: text.slice(i, end), start: i, end, open: true });
      i = end;
      continue;
    }
    if (c === '<') {
      IRIREF.lastIndex = i;
      const m = IRIREF.exec(text);
      if (m) { tokens.push({ kind: 'iri', text: m[0].slice(1, -1), start: i, end: i + m[0].length }); i += m[0].length; continue; }
    }
    WORD.lastIndex = i;
    const w = WORD.exec(text);
    if (w && w[0].length > 0) { tokens.push({ kind: 'word', text: w[0], start: i, end: i + w[0].length }); i += w[0].length; continue; }
    tokens.push({ kind: 'punct', text: c, start: i, end: i + 1 });
    i++;
  }
  return { text, tokens };
}

function isLineBreak(c: string): boolean {
  return c === '\n' || c === '\r';
}

/**
 * The deepest nesting of brackets ( (, { and [ ) in a query text, strings, IRIs and comments skipped:
 * a bound on how deep the engine's recursive parser and evaluator go, known without parsing.
 */
export function nestingDepth(query: string | LexedQuery): number {
  let depth = 0;
  let deepest = 0;
  for (const t of (typeof query === 'string' ? lexQuery(query) : query).tokens) {
    if (t.kind === 'string' || t.kind === 'iri') continue;
    // The lexer leaves `[` and `]` inside words (`[]`, `[[`): each counts.
    for (const c of t.text) {
      if (c === '(' || c === '{' || c === '[') deepest = Math.max(deepest, ++depth);
      else if (c === ')' || c === '}' || c === ']') depth = Math.max(0, depth - 1);
    }
  }
  return deepest;
}

/** What a query is (QueryShape), from its text or from its tokens when the caller has lexed it already. */
export function analyseQuery(query: string | LexedQuery): QueryShape {
  const text = typeof query === 'object' && query !== null ? query.text : query;
  if (typeof text !== 'string' || text.trim() === '') throw new UserError('empty SPARQL query: give a SELECT, ASK, CONSTRUCT or DESCRIBE query');
  const prefixes = new Map<string, string>();
  const declared = new Set<string>();
  let base: string | undefined;
  const it = (typeof query === 'string' ? lexQuery(query) : query).tokens[Symbol.iterator]();
  let form: QueryForm | undefined;
  let next = it.next();
  // Prologue.
  while (!next.done) {
    const t = next.value;
    const word = t.kind === 'word' ? t.text.toUpperCase() : '';
    if (word === 'BASE') {
      const iri = it.next();
      if (!iri.done && iri.value.kind === 'iri') base = resolve(iri.value.text, base);
    } else if (word === 'PREFIX') {
      const name = it.next();
      const iri = it.next();
      if (!name.done) declared.add(name.value.text.replace(/:$/, ''));
      if (!name.done && !iri.done && iri.value.kind === 'iri') {
        const ns = resolve(iri.value.text, base);
        if (ns) prefixes.set(name.value.text.replace(/:$/, ''), ns);
        else prefixes.delete(name.value.text.replace(/:$/, ''));
      }
    } else if (UPDATE_WORDS.has(word)) {
      throw new UserError(`SPARQL updates (${word}) are refused: the archive is read-only history; it changes only by crawling`);
    } else if (FORMS.has(word)) {
      form = word.toLowerCase() as QueryForm;
      break;
    } else {
      throw new UserError(`not a SPARQL query: expected SELECT, ASK, CONSTRUCT or DESCRIBE, found ${JSON.stringify(t.text.slice(0, 40))}`);
    }
    next = it.next();
  }
  if (!form) throw new UserError('not a SPARQL query: expected SELECT, ASK, CONSTRUCT or DESCRIBE');
  // SELECT's projection: `*` (after DISTINCT or REDUCED) is decided by the first tokens; 'open' until then.
  let star: boolean | 'open' = form === 'select' ? 'open' : false;
  const variables = new Set<string>();
  // Dataset clauses sit before the first top-level `{` (braces inside parentheses belong to EXISTS in a projection).
  let depth = 0;
  let inDatasetPart = true;
  let hasDataset = false;
  let graphs: string[] | undefined = [];
  const used = new Set<string>();
  for (let t = it.next(); !t.done; t = it.next()) {
    const tok = t.value;
    if (tok.kind === 'word') for (const p of prefixesIn(tok.text)) used.add(p);
    if (star === 'open' && !(tok.kind === 'word' && /^(DISTINCT|REDUCED)$/i.test(tok.text))) star = tok.text === '*';
    if (star === true && tok.kind === 'word') for (const v of tok.text.matchAll(VARIABLE)) variables.add(v[1]);
    if (!inDatasetPart) continue;
    if (tok.kind === 'punct') {
      if (tok.text === '(') depth++;
      else if (tok.text === ')') depth--;
      else if (tok.text === '{' && depth <= 0) inDatasetPart = false;
      continue;
    }
    if (depth > 0 || tok.kind !== 'word' || tok.text.toUpperCase() !== 'FROM') continue;
    hasDataset = true;
    let target = it.next();
    if (!target.done && target.value.kind === 'word' && target.value.text.toUpperCase() === 'NAMED') target = it.next();
    if (!target.done && target.value.kind === 'word') for (const p of prefixesIn(target.value.text)) used.add(p);
    const iri = target.done ? undefined : graphIri(target.value, prefixes, base);
    if (iri && graphs) graphs.push(iri);
    else graphs = undefined;
  }
  const predeclared: string[] = [];
  const unknownPrefixes: string[] = [];
  for (const p of used) {
    if (declared.has(p)) continue;
    const ns = (COMMON_PREFIXES as Readonly<Record<string, string>>)[p];
    if (ns !== undefined && Object.hasOwn(COMMON_PREFIXES, p)) {
      predeclared.push(`PREFIX ${p}: <${ns}> `);
      prefixes.set(p, ns);
    } else unknownPrefixes.push(p);
  }
  const prelude = predeclared.join('');
  // FROM clauses with a predeclared prefix resolve once it is declared.
  if (hasDataset && graphs === undefined && prelude) return { ...analyseQuery(prelude + text), text: prelude + text, prelude: prelude.length };
  const shape: QueryShape = { form, hasDataset, datasetGraphs: hasDataset ? graphs : undefined, text: prelude + text, prelude: prelude.length, unknownPrefixes };
  if (star === true) shape.variableOrder = [...variables];
  return shape;
}

/**
 * The prefix labels of the prefixed names in one lexer word (a word may hold several: `ex:p/ex:q`,
 * `"1"^^xsd:int` leaves `^^xsd:int`, `!rdf:type`). A label starts with a letter (PN_PREFIX); `_:` is a
 * blank node and `?x`/`$x` a variable, so a colon after a name character never starts a prefixed name.
 */
function prefixesIn(word: string): string[] {
  const found: string[] = [];
  for (const m of word.matchAll(PNAME_NS)) found.push(m[1] ?? '');
  return found;
}
const PNAME_NS = /(?<![\p{L}\p{N}_\-.:?$\u00B7])((?:\p{L})(?:[\p{L}\p{N}_\-.\u00B7]*[\p{L}\p{N}_\-\u00B7])?)?:/gu;

function graphIri(tok: Token, prefixes: Map<string, string>, base: string | undefined): string | undefined {
  if (tok.kind === 'iri') return resolve(tok.text, base);
  if (tok.kind !== 'word') return undefined;
  const colon = tok.text.indexOf(':');
  if (colon < 0) return undefined;
  const ns = prefixes.get(tok.text.slice(0, colon));
  // Escaped local names (\-sequences, %XX) are left to the engine: we then load every graph.
  if (ns === undefined || /[\\%]/.test(tok.text)) return undefined;
  return ns + tok.text.slice(colon + 1);
}

/** Relative IRIs are left unresolved (undefined): resolving them differently from the engine would load the wrong graphs. */
function resolve(iri: string, _base: string | undefined): string | undefined {
  return isAbsolute(iri) ? iri : undefined;
}

function isAbsolute(iri: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(iri);
}
