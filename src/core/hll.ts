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

/** A sketch being filled: register index -> its element (the greatest rank seen). */
export type Registers = Map<number, number>;

export function addElement(registers: Registers, element: number): void {
  const index = element >>> 6;
  const kept = registers.get(index);
  if (kept === undefined || element > kept) registers.set(index, element);
}

export function mergeRegisters(into: Registers, from: Registers): void {
  for (const element of from.values()) addElement(into, element);
}

/** The sketch as a Postgres integer[] literal, sorted: '{65,130}'. */
export function sketchLiteral(registers: Registers | null): string {
  if (registers === null || registers.size === 0) return '{}';
  return `{${[...registers.values()].sort((a, b) => a - b).join(',')}}`;
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
export function fmix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
