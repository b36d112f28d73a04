import * as ox from '../oxigraph.ts';
import type { QuadRow } from '../../versions/types.ts';
import { nquadLine } from '../../versions/sqlite-store.ts';

const NQUADS = 'application/n-quads';
/**
 * Rows are loaded in groups of row ids (id >> GROUP_BITS): blank-node quads of a group first, then the
 * others. The group depends on the row id alone, so any subset of the snapshot's rows goes into the store
 * in the same relative order as in the whole snapshot, and the engine, which answers in the order quads
 * were inserted, answers the same query in the same order over both. A group's text is the only thing
 * held (about 10 MB), never the snapshot's: that string once hit V8's limit at 3.8 M quads.
 */
const GROUP_BITS = 16;
/** Past this many lines a group goes through Oxigraph's bulk loader (faster, but a large fixed reserve). */
const BULK_LINES = 10_000;

/**
 * Fills an Oxigraph store with archive rows given in row-id order, keeping the archive's blank-node
 * labels: `load` would rename them at random on every call, so the lines with a blank node are parsed
 * (which keeps labels) and added one by one; the others are `load`ed, which is faster.
 */
export class StoreLoader {
  readonly store = new ox.Store();
  quads = 0;
  private group = -1;
  private blank: string[] = [];
  private plain: string[] = [];
  private readonly containedIn = new Set<string>();

  constructor(private readonly indexLine: (row: QuadRow) => string | undefined) {}

  add(rowid: number, row: QuadRow): void {
    const group = Math.floor(rowid / 2 ** GROUP_BITS);
    if (group !== this.group) {
      this.flush();
      this.group = group;
    }
    const line = nquadLine(row);
    (line.includes('_:') ? this.blank : this.plain).push(line);
    this.quads++;
    const index = this.indexLine(row);
    if (index) this.containedIn.add(index);
  }

  /** Loads what is buffered, then `extra` lines (the `dm:inDocument` statements) in a fixed order; returns the store. */
  finish(extra: Iterable<string> = []): ox.Store {
    this.flush();
    for (const line of extra) this.containedIn.add(line);
    for (const line of [...this.containedIn].sort()) (line.includes('_:') ? this.blank : this.plain).push(line);
    this.flush();
    return this.store;
  }

  private flush(): void {
    if (this.blank.length > 0) {
      for (const q of ox.parse(this.blank.join('\n') + '\n', { format: NQUADS, lenient: true })) this.store.add(q);
      this.blank = [];
    }
    if (this.plain.length > 0) {
      // The bulk loader (no_transaction) reserves ~160 MB of WebAssembly memory whatever it loads: for a few
      // thousand lines (a selective query, a first-solutions round) the transactional load costs 1 MB.
      this.store.load(this.plain.join('\n') + '\n', { format: NQUADS, no_transaction: this.plain.length > BULK_LINES, lenient: true });
      this.plain = [];
    }
  }
}
