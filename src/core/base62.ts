// Base62 with the alphabet 0-9 A-Z a-z, fixed width (left-padded with '0').
// Numbers stay below 2^53: config limits codes to 8 characters (62^8 < 2^48).

export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const DIGIT_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE62_ALPHABET.length; i++) DIGIT_OF[BASE62_ALPHABET.charCodeAt(i)] = i;

export function encodeBase62(value: number, width: number): string {
  if (!Number.isSafeInteger(value) || value < 0 || value >= 62 ** width) {
    throw new RangeError(`${value} does not fit in ${width} base62 digits`);
  }
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62_ALPHABET[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** The value of a base62 string, or -1 if it holds a character outside the alphabet. */
export function decodeBase62(text: string): number {
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const digit = c < 128 ? (DIGIT_OF[c] ?? -1) : -1;
    if (digit < 0) return -1;
    value = value * 62 + digit;
  }
  return value;
}
