/**
 * Term ids by N-Triples text, bounded: two generations (the young one filled, then the old one replaced
 * by it), a term read from the old one copied to the young. Emptying the whole cache when it filled, as
 * it did, lost the terms every version uses (vocabulary, linked documents' IRIs) with the rest: in a first
 * catch-up of 55,000 versions, 200,000 probes of the dictionary for terms it had seen
 * minutes before. It holds at most about `entries` terms (each generation half), as before.
 */
export class TermIds {
  private young = new Map<string, number>();
  private old = new Map<string, number>();

  constructor(private readonly entries: number) {}

  get(nt: string): number | undefined {
    const id = this.young.get(nt);
    if (id !== undefined) return id;
    const older = this.old.get(nt);
    if (older !== undefined) this.young.set(nt, older);
    return older;
  }

  has(nt: string): boolean {
    return this.young.has(nt) || this.old.has(nt);
  }

  set(nt: string, id: number): void {
    this.young.set(nt, id);
  }

  clear(): void {
    this.young.clear();
    this.old = new Map();
  }

  /**
   * Starts a new generation when the young one is full. Only where no id the caller holds on to may be
   * lost (between versions, or transactions): within one, every id set stays until then.
   */
  trim(): void {
    if (this.young.size < this.entries / 2) return;
    this.old = this.young;
    this.young = new Map();
  }
}
