/** Bits of the first layer: 128 KiB, room for 100,000 terms. */
const FIRST_LAYER_BITS = 1 << 20;
/** About 1 % of absent terms probed anyway with 4 bit tests (a false "maybe"): each costs one probe, never a wrong answer. */
const BITS_PER_TERM = 10;
const TESTS = 4;

/**
 * Which 48-bit term hashes (termHash) the dictionary may hold: a scalable Bloom filter (Almeida et al.,
 * "Scalable Bloom Filters", 2007), layers of twice the bits each as terms are added, so that it needs
 * neither a size up front nor the hashes again to grow. `mayHold` false means no term of that hash was
 * added; true may be wrong (a probe of the table then says). Which hashes are in the table it tells
 * only while the caller adds every term the table gets: the store keeps it that way (store.ts).
 */
export class TermFilter {
  private readonly layers: Uint32Array[] = [];
  private inLast = 0;
  private added = 0;

  constructor(private readonly maxBytes: number) {}

  /** Terms added; false once they would take more than `maxBytes` (the caller then drops the filter). */
  add(h: number): boolean {
    let last = this.layers[this.layers.length - 1];
    if (!last || this.inLast >= (last.length * 32) / BITS_PER_TERM) {
      const bits = last ? last.length * 64 : FIRST_LAYER_BITS;
      if ((this.bytes + bits / 8) > this.maxBytes) return false;
      this.layers.push((last = new Uint32Array(bits / 32)));
      this.inLast = 0;
    }
    const mask = last.length * 32 - 1;
    // Double hashing (Kirsch and Mitzenmacher) over the hash's two halves: sha1's bits are uniform already.
    const a = h >>> 0;
    const b = (Math.floor(h / 4294967296) * 0x9e3779b1) | 1;
    for (let i = 0; i < TESTS; i++) {
      const bit = (a + Math.imul(i, b)) & mask;
      last[bit >>> 5]! |= 1 << (bit & 31);
    }
    this.inLast++;
    this.added++;
    return true;
  }

  mayHold(h: number): boolean {
    const a = h >>> 0;
    const b = (Math.floor(h / 4294967296) * 0x9e3779b1) | 1;
    layers: for (const layer of this.layers) {
      const mask = layer.length * 32 - 1;
      for (let i = 0; i < TESTS; i++) {
        const bit = (a + Math.imul(i, b)) & mask;
        if ((layer[bit >>> 5]! & (1 << (bit & 31))) === 0) continue layers;
      }
      return true;
    }
    return false;
  }

  get size(): number {
    return this.added;
  }

  get bytes(): number {
    let n = 0;
    for (const l of this.layers) n += l.byteLength;
    return n;
  }
}
