/**
 * SPARQL syntax errors as a person reads them: where (line and column of the query as written), what was
 * found there, and what the grammar wanted, as Jena and Fuseki say it ("Encountered … at line 1, column 25.
 * Was expecting one of …"). Oxigraph's parser gives the position and its grammar's raw expectations
 * ("expected one of LATERAL, SERVICE, [_]", or 600 characters of Unicode classes); the position is kept,
 * the expectations are said in the query language's own words, and the commonest slips get their own
 * sentence: an IRI left open, a triple without its object, GROUP BY or ORDER BY with nothing after them.
 */

import { lexQuery, type Token } from './sparql-text.ts';

export interface SyntaxErrorInput {
  /** The engine's message, `error at L:C: expected …`. */
  message: string;
  /** The query as the user wrote it (without the PREFIX lines put before it). */
  text: string;
  /** Prefixes the query uses but neither declares nor finds among the predeclared ones. */
  unknownPrefixes: string[];
  /** The prefixes every query may use undeclared (COMMON_PREFIXES). */
  predeclared: string[];
}

const FUNCTIONS = new Set(['ABS', 'AVG', 'BNODE', 'BOUND', 'CEIL', 'COALESCE', 'CONCAT', 'CONTAINS', 'COUNT', 'DATATYPE', 'DAY', 'ENCODE_FOR_URI',
  'EXISTS', 'FLOOR', 'GROUP_CONCAT', 'HOURS', 'IF', 'IRI', 'LANG', 'LANGMATCHES', 'LCASE', 'MAX', 'MD5', 'MIN', 'MINUTES', 'MONTH', 'NOT', 'NOW',
  'RAND', 'REGEX', 'REPLACE', 'ROUND', 'SAMPLE', 'SECONDS', 'SHA1', 'SHA256', 'SHA384', 'SHA512', 'STR', 'STRAFTER', 'STRBEFORE', 'STRDT',
  'STRENDS', 'STRLANG', 'STRLEN', 'STRSTARTS', 'STRUUID', 'SUBSTR', 'SUM', 'TIMEZONE', 'TZ', 'UCASE', 'URI', 'UUID', 'YEAR', 'isBLANK',
  'isIRI', 'isLITERAL', 'isNUMERIC', 'isURI', 'sameTerm', 'PREDICATE', 'OBJECT', 'SUBJECT', 'TRIPLE', 'isTRIPLE', 'LANGDIR', 'STRLANGDIR',
  'hasLANG', 'hasLANGDIR']);

const ENGINE_ERROR = /^error at (\d+):(\d+): (.*)$/s;

/** The message to show, or undefined when the engine's message is not a located syntax error. */
export function describeSyntaxError({ message, text, unknownPrefixes, predeclared }: SyntaxErrorInput): string | undefined {
  const m = ENGINE_ERROR.exec(message);
  if (!m) return undefined;
  const line = Number(m[1]);
  const column = Number(m[2]);
  const offset = offsetOf(text, line, column);
  const where = `line ${line}, column ${column}`;
  const { tokens } = lexQuery(text);
  const open = unclosedIri(text, tokens, offset);
  if (open) {
    const at = positionOf(text, open.start);
    return `SPARQL syntax error at line ${at.line}, column ${at.column}: the IRI ${open.text} is not closed: an IRI ends with '>' and holds no spaces`;
  }
  const quote = tokens.find((t) => t.open && t.start <= offset);
  if (quote) {
    const at = positionOf(text, quote.start);
    const close = /^("""|'''|"|')/.exec(quote.text)![0];
    return `SPARQL syntax error at line ${at.line}, column ${at.column}: the string ${text.slice(quote.start, quote.start + 20).split('\n')[0]}… is not closed: end it with ${close} (a newline inside needs """ or \\n)`;
  }
  if (unknownPrefixes.length > 0) {
    const p = unknownPrefixes[0]!;
    return `unknown prefix '${p}:' — declare it with PREFIX ${p}: <…> (predeclared: ${predeclared.join(', ')})`;
  }
  const operand = missingOperand(text, tokens, offset);
  if (operand) {
    const at = positionOf(text, operand.at);
    return `SPARQL syntax error at line ${at.line}, column ${at.column}: found '${operand.found}', expected an expression after '${operand.operator}'`;
  }
  const paren = unclosedParenthesis(text, tokens, offset);
  if (paren !== undefined) {
    const at = positionOf(text, paren);
    return `SPARQL syntax error at ${where}: found ${foundAt(text, tokens, offset)}, expected ')' to close the '(' at line ${at.line}, column ${at.column}`;
  }
  // The engine may point just past the token that is wrong (a closing brace, the end): the slip is read before it.
  const before = tokens.filter((t) => t.start < offset).map((t) => text.slice(t.start, Math.min(t.end, offset)));
  const wrong = before.at(-1) === '}' && foundAt(text, tokens, offset) === 'the end of the query' ? before.pop() : undefined;
  const hint = slipAt(before);
  const found = wrong && hint ? `'${wrong}'` : foundAt(text, tokens, offset);
  const expected = hint ?? expectation(m[3]!);
  return `SPARQL syntax error at ${where}: found ${found}${expected ? `, expected ${expected}` : ''}`;
}

/** The offset in `text` of a 1-based line and column (counted in characters); the end when past it. */
function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', offset);
    if (nl < 0) return text.length;
    offset = nl + 1;
  }
  return Math.min(text.length, offset + Math.max(0, column - 1));
}

function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/** What stands at `offset`, quoted: a word or one character; "the end of the query" past the last token (comments are none). */
function foundAt(text: string, tokens: readonly Token[], offset: number): string {
  const t = tokens.find((t) => t.end > offset);
  if (!t) return 'the end of the query';
  const from = Math.max(t.start, offset);
  const word = t.kind === 'word' ? text.slice(from, t.end) : text[from]!;
  return `'${word.length > 30 ? `${word.slice(0, 30)}…` : word}'`;
}

/**
 * An IRI opened before `offset` on the same line and not closed: `<http://example.org/p ?o }`. A `<` that
 * compares (`?x < 3`, `?a <?b`) starts no IRI here: an IRI's first character is a letter, `#`, `/` or `.`.
 * Only a `<` the lexer left as punctuation counts: one in a string or a comment is no syntax.
 */
function unclosedIri(text: string, tokens: readonly Token[], offset: number): { start: number; text: string } | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  for (const t of tokens) {
    if (t.start > offset) break;
    if (t.kind !== 'punct' || t.text !== '<' || t.start < lineStart) continue;
    const m = /^<[A-Za-z#/.][^<>"{}|^`\\\s]*/.exec(text.slice(t.start, Math.max(offset, lineStart) + 1));
    if (!m || text[t.start + m[0].length] === '>') continue;
    return { start: t.start, text: m[0] };
  }
  return undefined;
}

const OPERATORS = new Set(['&&', '||', '!=', '<=', '>=', '<', '>', '=']);

/** A comparison or logical operator with nothing after it before `offset`: `FILTER(?o > )`. */
function missingOperand(text: string, tokens: readonly Token[], offset: number): { at: number; operator: string; found: string } | undefined {
  for (let i = 0; i < tokens.length && tokens[i]!.start <= offset; i++) {
    const t = tokens[i]!;
    let operator = t.kind === 'word' || t.kind === 'punct' ? t.text : '';
    let next = tokens[i + 1];
    // `<=` and `>=` are two tokens to the lexer (`<` and `>` are never part of a word).
    if ((operator === '<' || operator === '>') && next?.text === '=' && next.start === t.end) {
      operator += '=';
      next = tokens[i + 2];
    }
    if (!OPERATORS.has(operator) || !/\s/.test(text[t.start - 1] ?? '')) continue;
    if (next === undefined || next.start > offset) return { at: Math.min(offset + 1, text.length), operator, found: 'the end of the query' };
    if (')}]'.includes(next.text[0]!)) return { at: next.start, operator, found: next.text[0]! };
  }
  return undefined;
}

/** The offset of a `(` still open at `offset`, when the query closes a group or ends before it is closed. */
function unclosedParenthesis(text: string, tokens: readonly Token[], offset: number): number | undefined {
  const open: number[] = [];
  for (const t of tokens) {
    if (t.kind !== 'punct') continue;
    if (t.text === '(') open.push(t.start);
    else if (t.text === ')') open.pop();
    else if ((t.text === '{' || t.text === '}') && open.length > 0 && t.start <= offset + 1) return open.at(-1);
  }
  return open.length > 0 && offset >= text.trimEnd().length - 1 ? open.at(-1) : undefined;
}

/** A sentence for the slips people make most, from the tokens before the error; undefined for others. */
function slipAt(before: string[]): string | undefined {
  const last = before.slice(-2).map((t) => t.toUpperCase());
  if (last[1] === 'LIMIT' || last[1] === 'OFFSET') return `a whole number after ${last[1]} (e.g. ${last[1]} 10)`;
  if (last[1] === 'BY' && (last[0] === 'GROUP' || last[0] === 'ORDER')) {
    return `a variable or an expression after ${last[0]} BY (e.g. ${last[0]} BY ?s)`;
  }
  // The terms of the triple pattern being written: back to the `{`, `.`, `;` or `,` that began it.
  const terms: string[] = [];
  for (let i = before.length - 1; i >= 0; i--) {
    const t = before[i]!;
    if (t === '{' || t === '.' || t === '}') break;
    if (t === ';' || t === ',' || t === '(' || t === ')') return undefined;
    if (/^[A-Z]+$/i.test(t) && !t.includes(':')) return undefined; // a keyword (FILTER, OPTIONAL, a), not a term
    terms.unshift(t);
  }
  if (terms.length === 1) return `a predicate and an object after '${terms[0]}': a triple pattern is a subject, a predicate and an object`;
  if (terms.length === 2) return `an object after '${terms.join(' ')}': a triple pattern is a subject, a predicate and an object`;
  return undefined;
}

/** The grammar's expectations in the language's words: punctuation quoted, keywords as they are, classes named. */
function expectation(raw: string): string | undefined {
  const list = raw.replace(/^expected (one of )?/, '');
  const items: string[] = [];
  const seen = new Set<string>();
  const add = (s: string) => {
    if (!seen.has(s)) seen.add(s), items.push(s);
  };
  for (const m of list.matchAll(/"((?:[^"\\]|\\.)*)"|\[[^\]]*\]|'[^']*'\s*\.\.=\s*'[^']*'|([A-Za-z_][A-Za-z0-9_]*)/g)) {
    if (m[1] !== undefined) {
      const p = m[1];
      if (p === '?' || p === '$') add('a variable');
      else if (p === '<') add('an IRI');
      else if (p === ':') add('a prefixed name');
      else if (p === '"' || p === "'") add('a literal');
      else add(`'${p}'`);
    } else if (m[2] !== undefined) {
      add(m[2]);
    } else if (m[0].includes('..=')) {
      add('a name');
    }
  }
  if (items.length === 0) return undefined;
  // A list of built-in functions is the grammar's way of saying "an expression".
  const functions = items.filter((i) => FUNCTIONS.has(i));
  if (functions.length >= 3) {
    const rest = items.filter((i) => !FUNCTIONS.has(i));
    return rest.length === 0 ? 'an expression' : `an expression or one of ${rest.join(', ')}`;
  }
  const shown = items.length > 12 ? [...items.slice(0, 12), `… (${items.length - 12} more)`] : items;
  return shown.length === 1 ? shown[0] : `one of ${shown.join(', ')}`;
}
