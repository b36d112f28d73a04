/**
 * The archive's changes as a Linked Data Event Stream (https://w3id.org/ldes/specification), fragmented by
 * time with TREE relations (https://w3id.org/tree/specification).
 *
 * Every change of a document (a version whose graph differs from the one before, or a deletion) is a member:
 * `<member> dcterms:isVersionOf <document>` (the stream's ldes:versionOfPath) and `prov:generatedAtTime` the
 * capture time (its ldes:timestampPath), with the document's whole graph of that version in a named graph
 * named by the member, as the LDES spec lets a member's payload be. A deletion (the document answered 404 or
 * 410) is a member typed as:Delete (the stream's ldes:versionDeleteObject) with no graph. The whole graph, not
 * the delta: an LDES consumer keeps the latest member of each ldes:versionOfPath value as the state (the
 * spec's version semantics, ldes-client's `materialize`/`lastVersionOnly`), which a delta would break; a
 * delta would be smaller (bench/RESULTS.md measures the bytes per change). A capture that found the same
 * graph again is no change and no member. A member's IRI is a URL of this server that answers with the member
 * alone.
 *
 * Fragments are time windows [from, to). The root splits the archive by UTC day; a window with more
 * changes than a page is split again by the next smaller unit (hour, minute, second, millisecond), so a node
 * lists at most 24 or 60 children (1,000 for a second split by milliseconds), the root one per day, and a
 * client that starts at an instant follows one path down.
 * A window with few enough changes (or one millisecond) lists its members, a page at a time, keyed by
 * (time, document key). Each child is linked by a tree:GreaterThanOrEqualToRelation on its start and a
 * tree:LessThanRelation on its end, both on prov:generatedAtTime. A node's children are found by probing the
 * version log's time index for the first change at or after each bucket (HistoryReads.changes, limit 1): a
 * node costs an index probe per child, not a read of every change in its window, so no tree:remainingItems
 * (counting them was that read: 0.4 s for a day of 111,000 changes, bench/RESULTS.md). Nothing loads a snapshot.
 *
 * A window that ended more than CLOSED_AFTER_MS ago is closed: its fragments are served immutable (the
 * crawl indexes its captures within that time). Importing older WARCs (`datamonitor import`) does add
 * members to past windows, which the LDES spec's "no member earlier than the latest" does not foresee.
 */
import type { ChangeKey, ChangeRow, HistoryReads } from '../versions/backend.ts';
import type { QuadRow } from '../versions/types.ts';
import { COMMON_PREFIXES as P } from '../query/prefixes.ts';

export const LDES_PATH = '/ldes';
/** Members per fragment page: a few hundred kB of TriG for documents of some dozen triples. */
export const LDES_PAGE_SIZE = 100;
/** A window that ended this long ago gets no new member from a crawl: its fragments are immutable. */
export const CLOSED_AFTER_MS = 86_400_000;

const DAY = 86_400_000;
/** The units a window is split by, largest first: UTC days, hours, minutes, seconds, milliseconds. */
const UNITS = [DAY, 3_600_000, 60_000, 1000, 1];

const NS = {
  rdf: P.rdf,
  rdfs: P.rdfs,
  xsd: P.xsd,
  tree: 'https://w3id.org/tree#',
  ldes: 'https://w3id.org/ldes#',
  dcterms: P.dcterms,
  prov: P.prov,
  as: 'https://www.w3.org/ns/activitystreams#',
  sh: P.sh,
} as const;
const iri = (prefix: keyof typeof NS, local: string): string => `<${NS[prefix]}${local}>`;
const A = iri('rdf', 'type');
const TIME_PATH = iri('prov', 'generatedAtTime');
const VERSION_OF = iri('dcterms', 'isVersionOf');

/** What a fragment URL asks for: the root (no window), or a window [from, to), after a member's key. */
export interface FragmentRequest {
  window?: { from: number; to: number };
  after?: ChangeKey;
}

/** A fragment: its statements (N-Triples lines without the dot) and its members' graphs (N-Triples terms). */
export interface Fragment {
  /** The node's IRI (the URL it is served at). */
  node: string;
  triples: string[];
  graphs: Array<{ name: string; triples: Array<[s: string, p: string, o: string]> }>;
  /** Its window is closed: re-fetching it gives the same answer. */
  closed: boolean;
}

/**
 * The request's window and position from a fragment URL's query, or a message saying what to give: no
 * parameters (the root), or `from` and `to` (xsd:dateTime, from before to) and optionally `after`
 * (`<dateTime>~<key>`, as the fragments' own links write it).
 */
export function parseFragmentQuery(query: Record<string, unknown>): FragmentRequest | string {
  const allowed = new Set(['from', 'to', 'after']);
  const unknown = Object.keys(query).filter((k) => !allowed.has(k));
  if (unknown.length > 0) return `unknown parameter ${unknown.map((k) => `'${k}'`).join(', ')}: ${LDES_PATH} takes no parameters (the root), or from= and to= (xsd:dateTime) and after= as the fragments link them`;
  const { from, to, after } = query as Record<string, unknown>;
  if (from === undefined && to === undefined) {
    return after === undefined ? {} : `after= needs from= and to=: follow a fragment's tree:relation links, or start at ${LDES_PATH}`;
  }
  const f = typeof from === 'string' ? parseDateTime(from) : undefined;
  const t = typeof to === 'string' ? parseDateTime(to) : undefined;
  if (f === undefined || t === undefined) return `from= and to= must both be xsd:dateTime values with a time zone (e.g. from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z), got from=${String(from ?? '(none)')} to=${String(to ?? '(none)')}`;
  if (t <= f) return `to= (${String(to)}) must be later than from= (${String(from)})`;
  const req: FragmentRequest = { window: { from: f, to: t } };
  if (after !== undefined) {
    const m = typeof after === 'string' ? /^(.+)~(\d{1,15})$/.exec(after) : null;
    const time = m ? parseDateTime(m[1]!) : undefined;
    if (!m || time === undefined) return `after= must be <xsd:dateTime>~<key> as a fragment's next-page link writes it, got ${String(after)}`;
    req.after = { time, key: Number(m[2]) };
  }
  return req;
}

/** An xsd:dateTime with a time zone (Z or ±hh:mm) as epoch ms; undefined for anything else. */
function parseDateTime(text: string): number | undefined {
  if (!/^-?\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The URLs of the stream: the root, a window's fragment, a member (a version of a document). */
export function ldesUrls(base: string): { root: string; stream: string; window: (from: number, to: number, after?: ChangeKey) => string; member: (c: ChangeRow) => string } {
  const root = `${base}${LDES_PATH}`;
  return {
    root,
    stream: `${root}#stream`,
    window: (from, to, after) => `${root}?from=${iso(from)}&to=${iso(to)}${after ? `&after=${iso(after.time)}~${after.key}` : ''}`,
    member: (c) => `${root}/version/${iso(c.time)}/${c.graph}`,
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();
const dateTime = (ms: number): string => `"${iso(ms)}"^^${iri('xsd', 'dateTime')}`;
const integer = (n: number): string => `"${n}"^^${iri('xsd', 'integer')}`;
const literal = (text: string): string => JSON.stringify(text);

/** A member on its own (its IRI dereferenced): the change of `document` at `time`, or undefined when the archive holds none. */
export function memberDocument(reader: HistoryReads, base: string, time: number, document: string): Fragment | undefined {
  const change = reader.changes({ from: time, to: time + 1, limit: 100_000 }).find((c) => c.graph === document);
  if (!change) return undefined;
  const u = ldesUrls(base);
  const out: Fragment = { node: u.member(change), triples: [], graphs: [], closed: true };
  addMember(out, reader, u, change, 0);
  return out;
}

/** The fragment a request asks for. `pageSize`: members per page; `now`: the clock that closes windows. */
export function buildFragment(reader: HistoryReads, base: string, req: FragmentRequest, opts: { pageSize: number; now: number }): Fragment {
  const u = ldesUrls(base);
  if (!req.window) return rootFragment(reader, base, opts.now);
  const { from, to } = req.window;
  const node = u.window(from, to, req.after);
  const out: Fragment = { node, triples: [`<${node}> ${A} ${iri('tree', 'Node')}`], graphs: [], closed: to + CLOSED_AFTER_MS <= opts.now };
  const unit = UNITS.find((w) => w < to - from);
  const split = req.after === undefined && unit !== undefined && reader.changes({ from, to, limit: opts.pageSize + 1 }).length > opts.pageSize;
  if (split) {
    // Buckets of the unit, aligned to it (a window of another size, asked by hand, is split the same way).
    let r = 0;
    for (const start of changeBuckets(reader, from, to, unit)) {
      const a = Math.max(start, from);
      const b = Math.min(start + unit, to);
      relate(out, u.window(a, b), a, b, r++);
    }
    return out;
  }
  const page = reader.changes({ from, to, after: req.after, limit: opts.pageSize + 1 });
  const shown = page.slice(0, opts.pageSize);
  for (const [i, c] of shown.entries()) addMember(out, reader, u, c, i);
  if (page.length > opts.pageSize) {
    const last = shown.at(-1)!;
    relate(out, u.window(from, to, last), last.time, to, 0);
  }
  return out;
}

/**
 * The root: the stream's description, its member shape, the retention policy, and a relation to each UTC day
 * that holds changes.
 */
function rootFragment(reader: HistoryReads, base: string, now: number): Fragment {
  const u = ldesUrls(base);
  const es = `<${u.stream}>`;
  const root = `<${u.root}>`;
  const shape = `<${u.root}#member-shape>`;
  const first = reader.changes({ from: -8.64e15, to: 8.64e15, limit: 1 })[0];
  const out: Fragment = {
    node: u.root,
    closed: false,
    graphs: [],
    triples: [
      `${es} ${A} ${iri('ldes', 'EventStream')}`,
      `${es} ${iri('rdfs', 'label')} ${literal('Changes of the archived documents: each a version of its document, with its graph')}`,
      `${es} ${iri('ldes', 'timestampPath')} ${TIME_PATH}`,
      `${es} ${iri('ldes', 'versionOfPath')} ${VERSION_OF}`,
      `${es} ${iri('ldes', 'versionDeletePath')} ${A}`,
      `${es} ${iri('ldes', 'versionDeleteObject')} ${iri('as', 'Delete')}`,
      `${es} ${iri('tree', 'shape')} ${shape}`,
      `${es} ${iri('tree', 'view')} ${root}`,
      `${root} ${A} ${iri('tree', 'Node')}`,
      `${shape} ${A} ${iri('sh', 'NodeShape')}`,
      `${shape} ${iri('sh', 'property')} _:versionOf`,
      `_:versionOf ${iri('sh', 'path')} ${VERSION_OF}`,
      `_:versionOf ${iri('sh', 'nodeKind')} ${iri('sh', 'IRI')}`,
      `_:versionOf ${iri('sh', 'minCount')} ${integer(1)}`,
      `_:versionOf ${iri('sh', 'maxCount')} ${integer(1)}`,
      `${shape} ${iri('sh', 'property')} _:time`,
      `_:time ${iri('sh', 'path')} ${TIME_PATH}`,
      `_:time ${iri('sh', 'datatype')} ${iri('xsd', 'dateTime')}`,
      `_:time ${iri('sh', 'minCount')} ${integer(1)}`,
      `_:time ${iri('sh', 'maxCount')} ${integer(1)}`,
    ],
  };
  if (first) {
    // The archive keeps every version: the view retains every member since the first (LDES §Retention policies).
    out.triples.push(
      `${root} ${iri('ldes', 'retentionPolicy')} <${u.root}#retention>`,
      `<${u.root}#retention> ${iri('ldes', 'startingFrom')} ${dateTime(first.time)}`,
      `<${u.root}#retention> ${iri('rdfs', 'comment')} ${literal('Every change since the archive began is kept: the archive deletes no version.')}`,
    );
  }
  let r = 0;
  for (const start of first ? changeBuckets(reader, first.time, Math.max(now, first.time) + DAY, DAY) : []) {
    relate(out, u.window(start, start + DAY), start, start + DAY, r++);
  }
  return out;
}

/**
 * The start of each bucket of `width` ms (aligned to multiples of it) in [from, to) that holds a change, oldest
 * first: one probe of the time index per bucket found (the first change at or after the next bucket's start).
 */
function changeBuckets(reader: HistoryReads, from: number, to: number, width: number): number[] {
  const out: number[] = [];
  let cursor = from;
  while (cursor < to) {
    const next = reader.changes({ from: cursor, to, limit: 1 })[0];
    if (!next) break;
    const start = Math.floor(next.time / width) * width;
    out.push(start);
    cursor = start + width;
  }
  return out;
}

/** Links `out`'s node to the fragment `target` holding [from, to): a relation on each bound, on the stream's timestampPath. */
function relate(out: Fragment, target: string, from: number, to: number, n: number): void {
  const node = `<${out.node}>`;
  for (const [label, type, value] of [[`_:ge${n}`, 'GreaterThanOrEqualToRelation', from], [`_:lt${n}`, 'LessThanRelation', to]] as const) {
    out.triples.push(
      `${node} ${iri('tree', 'relation')} ${label}`,
      `${label} ${A} ${iri('tree', type)}`,
      `${label} ${iri('tree', 'path')} ${TIME_PATH}`,
      `${label} ${iri('tree', 'value')} ${dateTime(value)}`,
      `${label} ${iri('tree', 'node')} <${target}>`,
    );
  }
}

/** A member: its version's description, and its graph (the document's own triples at that time) in the member's named graph. */
function addMember(out: Fragment, reader: HistoryReads, u: ReturnType<typeof ldesUrls>, c: ChangeRow, i: number): void {
  const m = `<${u.member(c)}>`;
  out.triples.push(
    `<${u.stream}> ${iri('tree', 'member')} ${m}`,
    `${m} ${VERSION_OF} <${c.graph}>`,
    `${m} ${TIME_PATH} ${dateTime(c.time)}`,
  );
  if (c.kind === 'deleted') {
    out.triples.push(`${m} ${A} ${iri('as', 'Delete')}`);
    return;
  }
  const triples: Array<[string, string, string]> = [];
  // Blank nodes get the member's prefix: the same label in two versions' graphs of one page stays two nodes.
  const bnode = (term: string): string => (term.startsWith('_:') ? `_:m${i}_${term.slice(2)}` : term);
  for (const row of reader.snapshot(c.time, { graphs: [c.graph] }) as Iterable<QuadRow>) {
    // The document's own triples: not another document's named graph of this name, nor a quad document's named graphs.
    if (row.graph !== c.graph || row.namedGraph !== undefined) continue;
    triples.push([bnode(row.s), row.p, bnode(row.o)]);
  }
  out.graphs.push({ name: u.member(c), triples });
}

/** The stream's own vocabulary as TriG prefixed names: `<https://w3id.org/tree#member>` as `tree:member`. */
const OWN_TERM = new RegExp(`<(${Object.values(NS).map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})([A-Za-z][A-Za-z0-9_]*)>`, 'g');
const PREFIX_OF = new Map<string, string>(Object.entries(NS).map(([k, v]) => [v, k]));
/** A typed literal's datatype in XSD (its text cannot hold an unescaped quote, so the suffix is unambiguous). */
const XSD_DATATYPE = /"\^\^<http:\/\/www\.w3\.org\/2001\/XMLSchema#([A-Za-z]+)>$/;
const PREFIXES = Object.entries(NS).map(([k, v]) => `@prefix ${k}: <${v}> .\n`).join('');

/**
 * The fragment as TriG or N-Quads. TriG names the stream's vocabulary by prefix and gives each subject of a
 * member's graph once (`s p o ; p o .`): a third fewer bytes than its N-Quads. The graphs' own IRIs are written
 * in full (a prefixed name must end in a restricted character set; most data IRIs would need escapes).
 */
export function writeFragment(f: Fragment, format: 'trig' | 'nquads'): string {
  if (format === 'nquads') {
    const lines = f.triples.map((t) => `${t} .\n`);
    for (const g of f.graphs) for (const [s, p, o] of g.triples) lines.push(`${s} ${p} ${o} <${g.name}> .\n`);
    return lines.join('');
  }
  const own = (text: string): string => text.replace(OWN_TERM, (_m, ns: string, local: string) => `${PREFIX_OF.get(ns)}:${local}`);
  const parts = [PREFIXES, ...f.triples.map((t) => `${own(t)} .\n`)];
  for (const g of f.graphs) {
    const bySubject = new Map<string, string[]>();
    for (const [s, p, o] of g.triples) {
      const list = bySubject.get(s) ?? [];
      list.push(`${own(p)} ${o.startsWith('<') ? own(o) : o.replace(XSD_DATATYPE, '"^^xsd:$1')}`);
      bySubject.set(s, list);
    }
    const body = [...bySubject].map(([s, pos]) => `  ${s.startsWith('<') ? own(s) : s} ${pos.join(' ;\n    ')} .\n`).join('');
    parts.push(`<${g.name}> {\n${body}}\n`);
  }
  return parts.join('');
}
