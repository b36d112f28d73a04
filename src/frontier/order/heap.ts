/** A binary max-heap of prioritised entries; equal priorities come out in discovery order (seq). */
export interface Ranked {
  p: number;
  seq: number;
}

function before(a: Ranked, b: Ranked): boolean {
  return a.p > b.p || (a.p === b.p && a.seq < b.seq);
}

export class RankedHeap<T extends Ranked> {
  items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const a = this.items;
    let i = a.length;
    a.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(item, a[parent])) break;
      a[i] = a[parent];
      i = parent;
    }
    a[i] = item;
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) this.siftDown(last, 0);
    return top;
  }

  /** Replaces the content with `items` in O(n). */
  reset(items: T[]): void {
    this.items = items;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.siftDown(items[i], i);
  }

  private siftDown(item: T, i: number): void {
    const a = this.items;
    const n = a.length;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(a[child + 1], a[child])) child++;
      if (!before(a[child], item)) break;
      a[i] = a[child];
      i = child;
    }
    a[i] = item;
  }
}
