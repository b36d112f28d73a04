import N3 from 'n3';
import type { Term } from '@rdfjs/types';
import { UserError } from '../util/errors.ts';
import { ntTerm } from '../rdf/terms.ts';
import { COMMON_PREFIXES } from './prefixes.ts';
import type { PatternTerm, TriplePattern } from '../versions/types.ts';

const VARIABLE_IRI = 'urn:x-datamonitor-variable:';
// The same prefixes a SPARQL query may use undeclared.
const PREFIXES = Object.entries(COMMON_PREFIXES).map(([p, ns]) => `@prefix ${p}: <${ns}> .\n`).join('');

/**
 * Parses a triple pattern such as `<http://schema.org/Person> ?p ?o`, optionally with a fourth term for
 * the document graph (`?s a schema:Person <http://example.org/doc>`). Terms are written as in Turtle
 * (IRIs, literals, numbers, `a`, the prefixes of COMMON_PREFIXES); `?x` / `$x` are
 * variables. The Turtle parser does the term syntax, so literals come out in the archive's canonical form.
 */
export function parseTriplePattern(text: string): TriplePattern {
  const masked = maskVariables(text.trim().replace(/\s*\.\s*$/, ''));
  const parts = splitTerms(masked);
  if (parts.length !== 3 && parts.length !== 4) {
    throw new UserError(`a triple pattern has 3 terms (or 4 with the document graph), got ${parts.length}: ${JSON.stringify(text)}`);
  }
  const [s, p, o, g] = parts;
  let quads;
  try {
    quads = new N3.Parser({ format: 'text/turtle' }).parse(`${PREFIXES}${s} ${p} ${o} .`);
  } catch (e) {
    throw new UserError(`cannot read the triple pattern ${JSON.stringify(text)}: ${(e as Error).message}`);
  }
  if (quads.length !== 1) throw new UserError(`cannot read the triple pattern ${JSON.stringify(text)}`);
  const pattern: TriplePattern = { s: position(quads[0].subject), p: position(quads[0].predicate), o: position(quads[0].object) };
  if (g) {
    if (g.startsWith(`<${VARIABLE_IRI}`)) pattern.graph = { variable: g.slice(VARIABLE_IRI.length + 1, -1) };
    else if (/^<[^>]*>$/.test(g)) pattern.graph = { term: g };
    else throw new UserError(`the graph of a triple pattern is an IRI in <> or a variable, got ${g}`);
  }
  return pattern;
}

function position(term: Term): PatternTerm {
  if (term.termType === 'NamedNode' && term.value.startsWith(VARIABLE_IRI)) return { variable: term.value.slice(VARIABLE_IRI.length) };
  return { term: ntTerm(term) };
}

/** Replaces ?x / $x outside IRIs and strings by placeholder IRIs the Turtle parser accepts. */
function maskVariables(text: string): string {
  let out = '';
  for (let i = 0; i < text.length;) {
    const c = text[i];
    const end = c === '<' ? text.indexOf('>', i) : c === '"' || c === "'" ? closingQuote(text, i) : -1;
    if (end >= 0) { out += text.slice(i, end + 1); i = end + 1; continue; }
    const v = /^[?$]([A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(i));
    if (v) { out += `<${VARIABLE_IRI}${v[1]}>`; i += v[0].length; continue; }
    out += c;
    i++;
  }
  return out;
}

function closingQuote(text: string, start: number): number {
  const q = text[start];
  for (let j = start + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === q) return j;
  }
  return -1;
}

/** Splits at whitespace outside IRIs and strings (a literal may carry @lang or ^^<datatype> right after it). */
function splitTerms(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length;) {
    const c = text[i];
    const end = c === '<' ? text.indexOf('>', i) : c === '"' || c === "'" ? closingQuote(text, i) : -1;
    if (end >= 0) { current += text.slice(i, end + 1); i = end + 1; continue; }
    if (/\s/.test(c)) { if (current) parts.push(current); current = ''; i++; continue; }
    current += c;
    i++;
  }
  if (current) parts.push(current);
  return parts;
}
