// Recovery codes: ten a person, each ten characters of Crockford's base32 (50 random bits, shown as
// two groups of five), kept as SHA-256: a copy of the database gives none back, and with wrong
// codes limited per account and client (second-factor-service.ts) guessing one is hopeless. People
// type them back loosely: case, spaces and dashes do not matter, and O, I and L read as 0, 1 and 1.
// No I/O.

import { createHash, randomInt } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const LENGTH = 10;
const SHAPE = new RegExp(`^[${ALPHABET}]{${LENGTH}}$`);

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    let code = '';
    for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });
}

/** The hash a typed code is kept as, or undefined for what cannot be a code. */
export function recoveryCodeHash(typed: string): Buffer | undefined {
  const clean = typed.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
  if (!SHAPE.test(clean)) return undefined;
  return createHash('sha256').update(clean).digest();
}
