/**
 * A link graph that grows page by page: URLs interned to dense ids, edges appended to typed arrays,
 * in-degree kept up to date (the backlink count IB'), and a compact CSR snapshot of the in-links on
 * demand for PageRank. One link per (source, target) pair; self-links carry no endorsement.
 */

/** In-links in compressed sparse rows: the sources linking to v are inSrc[inStart[v] .. inStart[v+1]). */
export interface CsrGraph {
  readonly nodeCount: number;
  readonly inStart: Int32Array;
  readonly inSrc: Int32Array;
  readonly outDegree: Int32Array;
}

function grown(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const b = new Int32Array(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

export class LinkGraph {
  private readonly ids = new Map<string, number>();
  private readonly urls: string[] = [];
  private src = new Int32Array(1024);
  private dst = new Int32Array(1024);
  private edges = 0;
  private inDeg = new Int32Array(1024);
  private outDeg = new Int32Array(1024);
  /** Pages whose out-links are known: a page's links are recorded once. */
  private crawled = new Uint8Array(1024);

  get nodeCount(): number {
    return this.urls.length;
  }

  get edgeCount(): number {
    return this.edges;
  }

  idOf(url: string): number | undefined {
    return this.ids.get(url);
  }

  urlOf(id: number): string {
    return this.urls[id];
  }

  intern(url: string): number {
    let id = this.ids.get(url);
    if (id === undefined) {
      id = this.urls.length;
      this.ids.set(url, id);
      this.urls.push(url);
      if (id >= this.inDeg.length) {
        this.inDeg = grown(this.inDeg, id + 1);
        this.outDeg = grown(this.outDeg, id + 1);
        const c = new Uint8Array(this.inDeg.length);
        c.set(this.crawled);
        this.crawled = c;
      }
    }
    return id;
  }

  /** Records a page's out-links; returns the ids of the distinct targets it newly links to (empty when seen before). */
  addPage(url: string, targets: Iterable<string>): number[] {
    const from = this.intern(url);
    if (this.crawled[from]) return [];
    this.crawled[from] = 1;
    const added: number[] = [];
    const seen = new Set<number>();
    for (const t of targets) {
      const to = this.intern(t);
      if (to === from || seen.has(to)) continue;
      seen.add(to);
      added.push(to);
    }
    this.src = grown(this.src, this.edges + added.length);
    this.dst = grown(this.dst, this.edges + added.length);
    for (const to of added) {
      this.src[this.edges] = from;
      this.dst[this.edges] = to;
      this.edges++;
      this.inDeg[to]++;
    }
    this.outDeg[from] = added.length;
    return added;
  }

  inDegree(id: number): number {
    return this.inDeg[id];
  }

  outDegree(id: number): number {
    return this.outDeg[id];
  }

  /** A snapshot of the in-links (counting sort by target: O(nodes + edges)). */
  toCsr(): CsrGraph {
    const n = this.urls.length;
    const inStart = new Int32Array(n + 1);
    for (let v = 0; v < n; v++) inStart[v + 1] = inStart[v] + this.inDeg[v];
    const fill = inStart.slice(0, n);
    const inSrc = new Int32Array(this.edges);
    for (let e = 0; e < this.edges; e++) inSrc[fill[this.dst[e]]++] = this.src[e];
    return { nodeCount: n, inStart, inSrc, outDegree: this.outDeg.slice(0, n) };
  }
}
