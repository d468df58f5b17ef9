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
 * The element of a visitor: the two hashes of its address (hash32 under the day's two seeds),
 * each mixed with the hash of its User-Agent.
 */
export function visitorElement(addressA: number, addressB: number, agentHash: number): number {
  return hllElement(fmix(addressA ^ agentHash), fmix((addressB + agentHash) | 0));
}

/**
 * The sketch of `elements[from, to)` as a Postgres integer[] literal ('{65,130}'): sorted, one
 * element per register set (its greatest rank). Sorts and compacts that part of `elements` in place.
 */
export function sketchLiteral(elements: Int32Array, from = 0, to = elements.length): string {
  if (to - from > 1) elements.subarray(from, to).sort();
  const end = compactSorted(elements, from, to, elements, from);
  return `{${elements.subarray(from, end).join(',')}}`;
}

/**
 * Copies sorted `elements[from, to)` to `into` from `at`, one element per register (sorted, a
 * register's elements stand together, its greatest rank last: the last of each run is kept);
 * returns where the copy ends. `into` may be `elements` itself, with `at` ≤ `from`.
 */
export function compactSorted(elements: Int32Array, from: number, to: number, into: Int32Array, at: number): number {
  let n = at;
  for (let i = from; i < to; i++) {
    const element = elements[i] as number;
    if (i + 1 < to && (elements[i + 1] as number) >>> 6 === element >>> 6) continue;
    into[n++] = element;
  }
  return n;
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
