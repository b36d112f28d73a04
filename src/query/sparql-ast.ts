import type { Parser } from '@traqula/parser-sparql-1-1';
import type { Generator } from '@traqula/generator-sparql-1-1';

/**
 * The project's one SPARQL parser (traqula, SPARQL 1.1): the planner (plan/patterns.ts) and
 * link-traversal querying (crawler/follow/traversal.ts) read the same AST. Evaluation is Oxigraph's;
 * this AST only tells what a query reads and where a traversal starts.
 */

// biome-ignore lint/suspicious/noExplicitAny: traqula's AST is walked generically, by its `type`/`subType` tags.
export type SparqlNode = any;

let parser: Promise<Parser> | undefined;
let generator: Promise<Generator> | undefined;

/**
 * The parser, loaded and built on first use: that costs ~1 s of CPU (module loading, then the grammar's
 * analysis), which only a process that plans or traverses a query should pay, once.
 */
export function sparqlParser(): Promise<Parser> {
  parser ??= import('@traqula/parser-sparql-1-1').then((m) => new m.Parser());
  return parser;
}

/** The generator that writes an AST back as SPARQL text (loaded on first use, like the parser). */
export function sparqlGenerator(): Promise<Generator> {
  generator ??= import('@traqula/generator-sparql-1-1').then((m) => new m.Generator());
  return generator;
}

/**
 * Parses a query text for the planner; undefined when the parser does not take it (the engine then
 * decides: it may know an extension, or give the user its own error message).
 */
export async function parseForPlan(text: string): Promise<SparqlNode | undefined> {
  // The planner reads one query up to three times (count, patterns, first rows): parsed once. Readers do not change the AST.
  if (lastPlanned?.text === text) return lastPlanned.ast;
  let ast: SparqlNode | undefined;
  try {
    ast = (await sparqlParser()).parse(text);
  } catch {
    ast = undefined;
  }
  lastPlanned = { text, ast };
  return ast;
}
let lastPlanned: { text: string; ast: SparqlNode | undefined } | undefined;

/** Parses a query text; throws the parser's error (its message names the line and the token). */
export async function parseSparql(text: string): Promise<SparqlNode> {
  return (await sparqlParser()).parse(text);
}

/**
 * The absolute IRIs of an AST's IRI terms: traqula keeps a prefixed name as prefix + local part and a
 * relative IRI as written, so the prologue's PREFIX and BASE are applied here.
 */
export class IriResolver {
  private readonly prefixes = new Map<string, string>();
  private base: string | undefined;

  constructor(context: SparqlNode[] = []) {
    for (const def of context) this.define(def);
  }

  /** Takes one prologue declaration (a query's `context`, a subquery's too). */
  define(def: SparqlNode): void {
    if (def?.subType === 'prefix') this.prefixes.set(def.key, this.iri(def.value) ?? '');
    else if (def?.subType === 'base') this.base = this.iri(def.value);
  }

  /** The absolute IRI of an IRI term (prefixed or relative resolved); undefined if it cannot be told here. */
  iri(term: SparqlNode): string | undefined {
    if (term?.subType !== 'namedNode') return undefined;
    if (term.prefix !== undefined) {
      const ns = this.prefixes.get(term.prefix);
      return ns ? absolute(ns + term.value) : undefined;
    }
    return absolute(term.value) ?? (this.base ? resolveAgainst(term.value, this.base) : undefined);
  }
}

function absolute(iri: string): string | undefined {
  return /^[a-z][a-z0-9+.-]*:/i.test(iri) ? iri : undefined;
}

function resolveAgainst(iri: string, base: string): string | undefined {
  try {
    return new URL(iri, base).href === iri ? iri : undefined;
  } catch {
    return undefined;
  }
}
