/** A binary min-heap ordered by a numeric key; ties keep no particular order. */
export class MinHeap<T> {
  private items: T[] = [];
  private keys: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(item: T, key: number): void {
    const items = this.items;
    const keys = this.keys;
    let i = items.length;
    items.push(item);
    keys.push(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent] <= key) break;
      items[i] = items[parent];
      keys[i] = keys[parent];
      i = parent;
    }
    items[i] = item;
    keys[i] = key;
  }

  /** The items in no particular order. */
  values(): readonly T[] {
    return this.items;
  }

  /** Keeps only the items `keep` accepts (a heap with lazy deletion drops its stale items so). */
  retain(keep: (item: T) => boolean): void {
    const items = this.items;
    const keys = this.keys;
    this.items = [];
    this.keys = [];
    for (let i = 0; i < items.length; i++) if (keep(items[i]!)) this.push(items[i]!, keys[i]!);
  }

  peekKey(): number | undefined {
    return this.keys[0];
  }

  peek(): T | undefined {
    return this.items[0];
  }

  pop(): T | undefined {
    const items = this.items;
    const keys = this.keys;
    if (items.length === 0) return undefined;
    const top = items[0];
    const lastItem = items.pop() as T;
    const lastKey = keys.pop() as number;
    const n = items.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && keys[r] < keys[l] ? r : l;
        if (keys[c] >= lastKey) break;
        items[i] = items[c];
        keys[i] = keys[c];
        i = c;
      }
      items[i] = lastItem;
      keys[i] = lastKey;
    }
    return top;
  }
}
