// A keyed permutation of [0, 62^length): consecutive ids become codes that are neither
// consecutive nor guessable without the secret. It is a balanced Feistel network over the
// smallest even number of bits that covers the domain, with cycle-walking to stay inside it (on
// average 2^bits / 62^length passes, below 1.3 for 5..8 characters), so it is a true bijection
// and uniqueness still comes from the id alone. Not encryption: it hides order, nothing more.

import { createHmac } from 'node:crypto';

const ROUNDS = 8;

export interface Permutation {
  readonly size: number;
  forward(id: number): number;
  inverse(value: number): number;
}

export function createPermutation(secret: string, length: number): Permutation {
  const size = 62 ** length;
  const halfBits = Math.ceil(Math.log2(size) / 2);
  const halfMask = 2 ** halfBits - 1;
  const halfSpan = 2 ** halfBits;
  const keys = new Uint32Array(ROUNDS);
  const digest = createHmac('sha256', secret).update(`shortener-code-permutation:${length}`).digest();
  for (let r = 0; r < ROUNDS; r++) keys[r] = digest.readUInt32LE(r * 4);

  const round = (half: number, r: number): number => {
    // murmur3-style finaliser of (half ^ key): cheap, and every input bit moves every output bit.
    let h = (half ^ (keys[r] ?? 0)) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
    return (h >>> 0) & halfMask;
  };
  const encryptOnce = (x: number): number => {
    let left = Math.floor(x / halfSpan);
    let right = x % halfSpan;
    for (let r = 0; r < ROUNDS; r++) {
      const next = left ^ round(right, r);
      left = right;
      right = next;
    }
    return left * halfSpan + right;
  };
  const decryptOnce = (x: number): number => {
    let left = Math.floor(x / halfSpan);
    let right = x % halfSpan;
    for (let r = ROUNDS - 1; r >= 0; r--) {
      const prev = right ^ round(left, r);
      right = left;
      left = prev;
    }
    return left * halfSpan + right;
  };
  const check = (n: number): void => {
    if (!Number.isSafeInteger(n) || n < 0 || n >= size) throw new RangeError(`${n} is outside [0, ${size})`);
  };

  return {
    size,
    forward(id) {
      check(id);
      let x = encryptOnce(id);
      while (x >= size) x = encryptOnce(x);
      return x;
    },
    inverse(value) {
      check(value);
      let x = decryptOnce(value);
      while (x >= size) x = decryptOnce(x);
      return x;
    },
  };
}
