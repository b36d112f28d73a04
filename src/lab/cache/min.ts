/**
 * Belady's clairvoyant MIN for the seen test: on a miss with a full cache, drop
 * whichever of the cached keys and the newcomer is next requested furthest in the
 * future (dropping the newcomer = not caching it). Needs the next-use index of
 * every request (one backward pass) and a max-heap of the cached keys by next
 * use, so a trace of n requests costs O(n log k).
 */

/** nextUse[i] = index of the next request for the same key after i, or n when none. */
export function nextUses(ids: Int32Array, distinct: number): Int32Array {
  const n = ids.length;
  const next = new Int32Array(n);
  const last = new Int32Array(distinct).fill(n);
  for (let i = n - 1; i >= 0; i--) {
    const id = ids[i];
    next[i] = last[id];
    last[id] = i;
  }
  return next;
}

/** Misses of MIN with `capacity` entries over a trace of dense key ids (0 … distinct − 1). */
export function minMisses(ids: Int32Array, distinct: number, capacity: number, next: Int32Array = nextUses(ids, distinct)): number {
  const n = ids.length;
  const heap = new Int32Array(Math.max(1, Math.min(capacity, distinct))); // ids, max next-use at the root
  const pos = new Int32Array(distinct).fill(-1); // heap position, -1 = not cached
  const key = new Int32Array(distinct); // next use of each cached id
  let size = 0;
  let misses = 0;

  const siftUp = (i: number): void => {
    const id = heap[i], k = key[id];
    while (i > 0) {
      const p = (i - 1) >> 1, pid = heap[p];
      if (key[pid] >= k) break;
      heap[i] = pid; pos[pid] = i; i = p;
    }
    heap[i] = id; pos[id] = i;
  };
  const siftDown = (i: number): void => {
    const id = heap[i], k = key[id];
    for (;;) {
      let c = 2 * i + 1;
      if (c >= size) break;
      if (c + 1 < size && key[heap[c + 1]] > key[heap[c]]) c++;
      const cid = heap[c];
      if (key[cid] <= k) break;
      heap[i] = cid; pos[cid] = i; i = c;
    }
    heap[i] = id; pos[id] = i;
  };

  for (let t = 0; t < n; t++) {
    const id = ids[t], nu = next[t];
    const p = pos[id];
    if (p >= 0) {
      key[id] = nu; // next use only moves later: sift towards the root
      siftUp(p);
      continue;
    }
    misses++;
    if (capacity === 0 || nu === n) continue; // never requested again: caching it cannot help
    if (size < capacity) {
      key[id] = nu;
      heap[size] = id;
      size++;
      siftUp(size - 1);
    } else if (key[heap[0]] > nu) {
      pos[heap[0]] = -1;
      key[id] = nu;
      heap[0] = id;
      siftDown(0);
    }
  }
  return misses;
}
