import { iriTerm } from '../rdf/terms.ts';
import type { PatternVersions, QuadRow, TriplePattern } from './types.ts';

/** `to_t` of a triple that still holds: a number, so that one index serves "valid at T" for every T. */
export const OPEN = Number.MAX_SAFE_INTEGER;

/** A quad row as the stores read it: its terms as N-Triples, `ng` its named graph (NULL: the document's). */
export interface RawRow { g: string; s: string; p: string; o: string; ng: string | null }

export function checkTime(time: number, what: string): number {
  if (!Number.isFinite(time)) throw new Error(`${what}: time must be epoch milliseconds, got ${time}`);
  return Math.floor(time);
}

export function checkGraph(graph: string): void {
  if (typeof graph !== 'string' || !/^[a-z][a-z0-9+.-]*:/i.test(graph)) throw new Error(`graph must be an absolute IRI, got ${JSON.stringify(graph)}`);
}

export function toQuadRow(r: RawRow): QuadRow {
  const row: QuadRow = { graph: r.g.slice(1, -1), s: r.s, p: r.p, o: r.o };
  if (r.ng) row.namedGraph = r.ng;
  return row;
}

/** The N-Quads line of a row (for loading into Oxigraph and for output): in its own graph, else its document's. */
export function nquadLine(q: QuadRow): string {
  return `${q.s} ${q.p} ${q.o} ${q.namedGraph ?? iriTerm(q.graph)} .`;
}
export function ntripleLine(q: QuadRow): string {
  return `${q.s} ${q.p} ${q.o} .`;
}

/**
 * cyrb53's running state: the two hashes below mix text into it, then finish it. Held here, not in an object
 * a hash, because the writer hashes every triple of every changed version; nothing between start() and
 * finish() yields, so no two hashes interleave.
 */
let h1 = 0;
let h2 = 0;

function mix(text: string): void {
  let a = h1;
  let b = h2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 2654435761);
    b = Math.imul(b ^ c, 1597334677);
  }
  h1 = a;
  h2 = b;
}

/** A term and the space after it, so that "ab"+"c" differs from "a"+"bc". */
function mixTerm(text: string): void {
  mix(text);
  h1 = Math.imul(h1 ^ 32, 2654435761);
  h2 = Math.imul(h2 ^ 32, 1597334677);
}

function start(): void {
  h1 = 0xdeadbeef;
  h2 = 0x41c6ce57;
}

function finish(): number {
  const a = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  const b = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
  return 4294967296 * (2097151 & b) + (a >>> 0);
}

/**
 * cyrb53 (a public-domain 53-bit string hash) of a triple's N-Triples text, each term followed by a space.
 * The writer matches a new version's triples to its document's open rows by it. Within one graph a collision
 * (about n²/2^54: 10^-8 for 16,000 triples) would hide one added triple; that is the price of not looking
 * up the dictionary id of every term of every version.
 */
export function tripleHash(s: string, p: string, o: string, ng: string): number {
  start();
  mixTerm(s);
  mixTerm(p);
  mixTerm(o);
  // A default-graph triple hashes as before named graphs; the same triple in two named graphs is two rows.
  if (ng) mixTerm(ng);
  return finish();
}

/**
 * tripleHash of the line `s p o [ng] ` (each term and its space), as the store reads an open row back in one
 * string: one string a row instead of four (bench/ARCHIVE-SIZE.md, the writer's cost of a changed document).
 */
export function tripleLineHash(line: string): number {
  start();
  mix(line);
  return finish();
}

/**
 * A pattern's matching rows (ordered by quad, then time) grouped by quad with their validity intervals,
 * rows failing a repeated variable dropped.
 */
export function intervalsByQuad(rows: Iterable<RawRow & { k: string; from_t: number; to_t: number; gid: number }>, pattern: TriplePattern): Map<string, PatternVersions & { gid: number }> {
  const sameVariable = repeatedVariables(pattern);
  const byKey = new Map<string, PatternVersions & { gid: number }>();
  for (const r of rows) {
    if (sameVariable && !sameVariable(r)) continue;
    let entry = byKey.get(r.k);
    if (!entry) byKey.set(r.k, (entry = { quad: toQuadRow(r), intervals: [], versions: [], gid: r.gid }));
    entry.intervals.push(r.to_t === OPEN ? { from: r.from_t } : { from: r.from_t, to: r.to_t });
  }
  return byKey;
}

/** A pattern like `?x <p> ?x` needs equal terms where the variable repeats; SQL matched only constants. */
export function repeatedVariables(pattern: TriplePattern): ((r: RawRow) => boolean) | undefined {
  const positions = new Map<string, Array<'s' | 'p' | 'o' | 'g'>>();
  for (const [column, position] of [['s', pattern.s], ['p', pattern.p], ['o', pattern.o], ['g', pattern.graph]] as const) {
    if (position && 'variable' in position) positions.set(position.variable, [...(positions.get(position.variable) ?? []), column]);
  }
  const groups = [...positions.values()].filter((cols) => cols.length > 1);
  if (groups.length === 0) return undefined;
  return (r) => groups.every((cols) => cols.every((c) => r[c] === r[cols[0]]));
}
