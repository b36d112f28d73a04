import * as ox from '../oxigraph.ts';
import { UserError } from '../../util/errors.ts';
import type { ResultFormat } from '../../versions/types.ts';
import { mediaTypeOf } from './formats.ts';

/**
 * A CONSTRUCT / DESCRIBE result (with stable blank-node labels, see relabelQuads) in a graph format.
 * The quads go through a scratch store so that Oxigraph's own writers do the syntax (N-Triples, Turtle,
 * RDF/XML, JSON-LD, N-Quads) and the order is the store's, fixed by the terms alone: the same graph is
 * written as the same bytes whatever order the engine produced it in.
 */
export function writeGraph(quads: ox.Quad[], format: ResultFormat): string {
  const store = new ox.Store(quads);
  try {
    const dataset = format === 'nquads';
    return store.dump(dataset ? { format: mediaTypeOf(format) } : { format: mediaTypeOf(format), from_graph_name: ox.defaultGraph() });
  } catch (e) {
    // RDF/XML and JSON-LD cannot carry every graph (a triple term, a predicate RDF/XML cannot name).
    throw new UserError(`this result cannot be written as ${format}: ${(e as Error).message ?? e}; ask for N-Triples or Turtle instead`);
  } finally {
    ox.freeStore(store);
  }
}
