// People's passwords: the rules a new one must pass and how it is kept.
//
// The rules are NIST SP 800-63B's (section 3.1.1.2): at least 8 characters and at most 256, counted as
// Unicode code points after NFC normalisation; no composition rules (no "a digit and a symbol"); refused
// when it is a known common password (common-passwords.ts), the person's email address, its local part,
// their name, or one character repeated. A password is kept as an Argon2id PHC string
// (@node-rs/argon2, in libuv's pool) with OWASP's parameters (Password Storage Cheat Sheet: 19 MiB,
// 2 passes, 1 lane). Callers bound how many run at once with core/hash-slots.ts.

import { hash, verify, type Options } from '@node-rs/argon2';
import { ERRORS } from '../errors.ts';
import { isCommonPassword } from './common-passwords.ts';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

// Argon2id is the library's default algorithm (its Algorithm is a const enum, which type stripping
// cannot inline); the PHC string says which it is, and the tests check it.
const ARGON2: Options = {
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

/**
 * The hash of a password nobody has, made with ARGON2: a sign-in for an address that has no account
 * checks against it, so that the answer takes as long as for one that has.
 */
export const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$DBItKAGeuXWGe0I9qBgJEg$MdcITJ4fDJhYzJdh1tpTltN64w+l3FhlF7SbPS3atAI';

export type PasswordProblemCode = 'PASSWORD_TOO_SHORT' | 'PASSWORD_TOO_LONG' | 'PASSWORD_TOO_COMMON';

/** The same password typed as composed or decomposed characters (é or e + ´) is one password. */
function normalised(password: string): string {
  return password.normalize('NFC');
}

/** Length in code points of the NFC form: what a person counts, not UTF-16 units. */
export function passwordLength(password: string): number {
  let count = 0;
  for (const _ of normalised(password)) count++;
  return count;
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(
  password: string,
  context: { email?: string; name?: string },
): { code: PasswordProblemCode; message: string } | undefined {
  const length = passwordLength(password);
  if (length < PASSWORD_MIN_LENGTH) return problem('PASSWORD_TOO_SHORT');
  if (length > PASSWORD_MAX_LENGTH) return problem('PASSWORD_TOO_LONG');
  const lower = normalised(password).toLowerCase();
  if (isCommonPassword(lower) || personal(context).has(lower) || new Set(lower).size === 1) return problem('PASSWORD_TOO_COMMON');
  return undefined;
}

function problem(code: PasswordProblemCode): { code: PasswordProblemCode; message: string } {
  return { code, message: ERRORS[code].message };
}

/** What a guesser who knows the person tries first: the address, its local part, the name. */
function personal({ email, name }: { email?: string; name?: string }): Set<string> {
  const words = new Set<string>();
  const add = (word: string | undefined) => {
    const lower = word === undefined ? '' : normalised(word).trim().toLowerCase();
    if (lower !== '') words.add(lower);
  };
  add(email);
  const at = email?.lastIndexOf('@') ?? -1;
  if (at > 0) add(email?.slice(0, at));
  add(name);
  return words;
}

/** An Argon2id PHC string of the password, with its own random salt. */
export function hashPassword(password: string): Promise<string> {
  return hash(normalised(password), ARGON2);
}

/**
 * Whether `password` is the one `stored` was made from. Without a stored hash (no such account) the
 * password is checked against a dummy all the same, and the answer is false; a stored value that is
 * not a PHC string this reads is false too, never a throw. `check` is Argon2's verify; the tests pass
 * one that records which hash it was given.
 */
export async function verifyPassword(
  stored: string | null,
  password: string,
  check: (hashed: string, password: string) => Promise<boolean> = verify,
): Promise<boolean> {
  try {
    const matches = await check(stored ?? DUMMY_HASH, normalised(password));
    return matches && stored !== null;
  } catch {
    return false;
  }
}
