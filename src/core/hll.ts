// HyperLogLog sketches of unique visitors (Flajolet et al. 2007), in the sparse form Postgres keeps
// and merges (migrations/0009_analytics.sql: hll_merge, hll_union, hll_estimate): a sorted list of
// elements, one per register that was set, each its index shifted left by 6 plus its rank. With
// 4096 registers the relative standard error is 1.04 / sqrt(4096) = 1.6 %; small counts are near
// exact (linear counting). A sketch keeps a few bits of each hash: nothing of an address.

/** Bits of the register index: 2^12 registers. */
const P = 12;
export const REGISTERS = 1 << P;
/** Relative standard error of an estimate: 1.04 / sqrt(m). */
export const HLL_ERROR = 1.04 / Math.sqrt(REGISTERS);

/** The element a visitor's two 32-bit hashes set: register from the first, rank from the second. */
export function hllElement(h1: number, h2: number): number {
  const index = h1 >>> (32 - P);
  const rank = Math.clz32(h2) + 1;
  return (index << 6) | rank;
}

/**
 * A sketch being filled. While few registers are set, elements are appended as they come (a push,
 * where a map of registers would cost a lookup and a store per click and dimension) and compacted,
 * sorted with one element per register (its greatest rank), whenever the list has doubled; past
 * DENSE_AT registers, it keeps every register's rank in 4 KiB instead, and an element costs a store.
 */
export class Sketch {
  #elements: number[] = [];
  #compactAt = COMPACT_MIN;
  #ranks: Uint8Array | null = null;

  add(element: number): void {
    const ranks = this.#ranks;
    if (ranks !== null) {
      const index = element >>> 6;
      const rank = element & 63;
      if (rank > (ranks[index] as number)) ranks[index] = rank;
      return;
    }
    this.#elements.push(element);
    if (this.#elements.length >= this.#compactAt) this.#compact();
  }

  merge(other: Sketch): void {
    for (const element of other.elements()) this.add(element);
  }

  /** Its elements, sorted, one per register set. */
  elements(): readonly number[] {
    const ranks = this.#ranks;
    if (ranks === null) {
      this.#compact();
      return this.#elements;
    }
    const elements: number[] = [];
    for (let index = 0; index < REGISTERS; index++) {
      const rank = ranks[index] as number;
      if (rank !== 0) elements.push((index << 6) | rank);
    }
    return elements;
  }

  #compact(): void {
    // Sorted, a register's elements stand together, its greatest rank last.
    const sorted = this.#elements.sort((a, b) => a - b);
    let kept = 0;
    for (let i = 0; i < sorted.length; i++) {
      const element = sorted[i] as number;
      const next = sorted[i + 1];
      if (next === undefined || next >>> 6 !== element >>> 6) sorted[kept++] = element;
    }
    sorted.length = kept;
    this.#compactAt = Math.max(COMPACT_MIN, 2 * kept);
    if (kept >= DENSE_AT) {
      const ranks = new Uint8Array(REGISTERS);
      for (const element of sorted) ranks[element >>> 6] = element & 63;
      this.#ranks = ranks;
      this.#elements = [];
    }
  }
}

const COMPACT_MIN = 64;
/** Registers set past which a sketch keeps them all: 4 KiB, no more than 1,024 elements take. */
const DENSE_AT = 1024;

/** The sketch as a Postgres integer[] literal, sorted: '{65,130}'. */
export function sketchLiteral(sketch: Pick<Sketch, 'elements'> | null): string {
  return sketch === null ? '{}' : `{${sketch.elements().join(',')}}`;
}

/** A 32-bit hash of `text` from `seed` (murmur3's mixing), for visitor hashes and their parts. */
export function hash32(text: string, seed: number): number {
  let h = seed | 0;
  for (let i = 0; i < text.length; i++) {
    let k = Math.imul(text.charCodeAt(i), 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  return fmix(h ^ text.length);
}

/** murmur3's finaliser: every input bit reaches every output bit. */
function fmix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
