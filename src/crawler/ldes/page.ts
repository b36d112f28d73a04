import type { Quad, Term } from '@rdfjs/types';
import { normalizeUrl } from '../../frontier/normalize.ts';

/**
 * What one page of a Linked Data Event Stream (https://w3id.org/ldes/specification) says, read from its
 * quads: the stream's description where the page carries it, the page's tree:relation links to other nodes
 * (https://w3id.org/tree/specification), and its members, each with the quads that can be its payload.
 */

export const TREE = 'https://w3id.org/tree#';
export const LDES = 'https://w3id.org/ldes#';
export const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
export const AS_DELETE = 'https://www.w3.org/ns/activitystreams#Delete';

/** The stream's own description: where in a member its version-of and time are (LDES §Version semantics). */
export interface StreamDescription {
  stream: string;
  versionOfPath?: string;
  timestampPath?: string;
  /** The predicate and object that make a member a deletion (ldes:versionDeletePath, ldes:versionDeleteObject). */
  deletePath?: string;
  deleteObject?: string;
  /** A path the description gives that is not one predicate (a SHACL sequence path): said, not followed. */
  unsupported: string[];
}

/** A tree:relation (or a stream's tree:view, kind `view`): the node it leads to, its kind (local name) and, for a comparison, its path and value. */
export interface Relation {
  node: string;
  type?: string;
  path?: string;
  value?: string;
}

/** A member as the page has it: its description (the CBD of its IRI in the default graph) and its named graph. */
export interface PageMember {
  id: string;
  stream: string;
  /** Quads with the member as subject, and the blank nodes they reach, in the default graph. */
  description: Quad[];
  /** The quads of the named graph named by the member (empty when the member's data is in the default graph). */
  graph: Quad[];
}

export interface PageReading {
  descriptions: StreamDescription[];
  relations: Relation[];
  members: PageMember[];
  /** The page has anything of a stream (a member, a relation, a stream description): it is a page to read. */
  isStreamPage: boolean;
}

const isDefault = (q: Quad) => q.graph.termType === 'DefaultGraph';
const key = (t: Term) => `${t.termType}:${t.value}`;

/** Reads a page's quads. Only the default graph describes the stream; a member's named graph is its payload. */
export function readPage(quads: readonly Quad[]): PageReading {
  const bySubject = new Map<string, Quad[]>();
  const byGraph = new Map<string, Quad[]>();
  for (const q of quads) {
    if (isDefault(q)) {
      const list = bySubject.get(key(q.subject));
      if (list) list.push(q);
      else bySubject.set(key(q.subject), [q]);
    } else {
      const list = byGraph.get(q.graph.value);
      if (list) list.push(q);
      else byGraph.set(q.graph.value, [q]);
    }
  }
  const out: PageReading = { descriptions: [], relations: [], members: [], isStreamPage: false };
  const seenMembers = new Set<string>();
  const viewed = new Set<string>();
  for (const q of quads) {
    if (!isDefault(q)) continue;
    const p = q.predicate.value;
    if (p === `${TREE}member` && (q.object.termType === 'NamedNode' || q.object.termType === 'BlankNode')) {
      if (q.object.termType !== 'NamedNode' || seenMembers.has(q.object.value)) continue;
      seenMembers.add(q.object.value);
      out.members.push({ id: q.object.value, stream: q.subject.value, description: closure(q.object, bySubject), graph: byGraph.get(q.object.value) ?? [] });
    } else if (p === `${TREE}relation`) {
      const r = relationOf(q.object, bySubject);
      if (r) out.relations.push(r);
    } else if (p === `${TREE}view` && q.object.termType === 'NamedNode' && !viewed.has(q.subject.value)) {
      // A stream's description names its views: the first is read, as ldes-client does (more views hold the same members).
      viewed.add(q.subject.value);
      const node = normalizeUrl(q.object.value);
      if (node) out.relations.push({ node, type: 'view' });
    } else if ((p === `${LDES}versionOfPath` || p === `${LDES}timestampPath` || (p === RDF_TYPE && q.object.value === `${LDES}EventStream`)) && q.subject.termType === 'NamedNode') {
      if (!out.descriptions.some((d) => d.stream === q.subject.value)) out.descriptions.push(describe(q.subject.value, bySubject.get(key(q.subject)) ?? []));
    }
  }
  out.isStreamPage = out.members.length > 0 || out.relations.length > 0 || out.descriptions.length > 0;
  return out;
}

/** The member's concise bounded description: its own quads and, through blank-node objects, theirs. */
function closure(start: Term, bySubject: Map<string, Quad[]>): Quad[] {
  const out: Quad[] = [];
  const done = new Set<string>();
  const todo = [start];
  while (todo.length) {
    const t = todo.pop()!;
    if (done.has(key(t))) continue;
    done.add(key(t));
    for (const q of bySubject.get(key(t)) ?? []) {
      out.push(q);
      if (q.object.termType === 'BlankNode') todo.push(q.object);
    }
  }
  return out;
}

function relationOf(r: Term, bySubject: Map<string, Quad[]>): Relation | undefined {
  const qs = bySubject.get(key(r)) ?? [];
  const target = qs.find((q) => q.predicate.value === `${TREE}node` && q.object.termType === 'NamedNode')?.object.value;
  const node = target && normalizeUrl(target);
  if (!node) return undefined;
  const type = qs.find((q) => q.predicate.value === RDF_TYPE && q.object.value.startsWith(TREE))?.object.value.slice(TREE.length);
  const path = qs.find((q) => q.predicate.value === `${TREE}path`);
  const value = qs.find((q) => q.predicate.value === `${TREE}value` && q.object.termType === 'Literal')?.object.value;
  return { node, type, path: path?.object.termType === 'NamedNode' ? path.object.value : undefined, value };
}

function describe(stream: string, qs: readonly Quad[]): StreamDescription {
  const d: StreamDescription = { stream, unsupported: [] };
  const one = (local: string): string | undefined => {
    const q = qs.find((x) => x.predicate.value === `${LDES}${local}`);
    if (!q) return undefined;
    if (q.object.termType === 'NamedNode') return q.object.value;
    d.unsupported.push(`ldes:${local} is a ${q.object.termType === 'BlankNode' ? 'SHACL path' : q.object.termType}, not one predicate`);
    return undefined;
  };
  d.versionOfPath = one('versionOfPath');
  d.timestampPath = one('timestampPath');
  d.deletePath = one('versionDeletePath');
  d.deleteObject = qs.find((x) => x.predicate.value === `${LDES}versionDeleteObject`)?.object.value;
  return d;
}

/**
 * Whether a relation's bounds say its node holds nothing at or after `since` on the time path: a
 * LessThan(OrEqualTo) relation whose value is before it. Relations on other paths, or whose value is no
 * time, never rule a node out.
 */
export function before(relations: readonly Relation[], since: number, timestampPath: string | undefined): boolean {
  return relations.some((r) => {
    if (r.type !== 'LessThanRelation' && r.type !== 'LessThanOrEqualToRelation') return false;
    if (timestampPath && r.path && r.path !== timestampPath) return false;
    const t = r.value === undefined ? Number.NaN : Date.parse(r.value);
    return Number.isFinite(t) && (r.type === 'LessThanRelation' ? t <= since : t < since);
  });
}
