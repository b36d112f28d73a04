import { UserError } from '../util/errors.ts';
import { nquadLine, ntripleLine } from './sqlite-store.ts';
import type { HistoryReads } from './backend.ts';
import type { QuadRow } from './types.ts';

/** What `datamonitor diff` and `GET /api/diff` show: the lines added and removed between two instants. */
export interface DiffLines {
  from: number;
  to: number;
  /** The document, or null for the whole archive. */
  graph: string | null;
  /** Sorted N-Triples lines for one document (N-Quads for its named graphs and for the whole archive). */
  added: string[];
  removed: string[];
}

/**
 * Diff(from, to) of one document's graph or of the whole archive as sorted lines, with the archive's stable
 * blank-node labels, so that the CLI and the server print the same text for the same question.
 */
export function diffLines(archive: HistoryReads, url: string | undefined, from: number, to: number): DiffLines {
  if (to < from) throw new UserError(`the later time (${new Date(to).toISOString()}) is before the earlier one (${new Date(from).toISOString()}): swap them`);
  if (url && archive.versions(url).length === 0) throw new UserError(`the archive has no version of ${url}: see datamonitor query --list`);
  const delta = archive.delta(from, to, { graphs: url ? [url] : undefined });
  // One document's lines carry no graph, except those of its named graphs (TriG, N-Quads).
  const line = url ? (q: QuadRow) => (q.namedGraph ? nquadLine(q) : ntripleLine(q)) : nquadLine;
  return { from, to, graph: url ?? null, added: delta.added.map(line).sort(), removed: delta.removed.map(line).sort() };
}
