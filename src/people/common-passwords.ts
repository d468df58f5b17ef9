// The common passwords a new password may not be (passwords.ts): common-passwords.txt beside this file,
// shipped with the sources and read once from disk, never fetched. Its header says where the list comes
// from; scripts/common-passwords.ts makes it again.

import { readFileSync } from 'node:fs';

export const COMMON_PASSWORDS_FILE = new URL('common-passwords.txt', import.meta.url);

let loaded: ReadonlySet<string> | undefined;

/**
 * The list, lower-cased, read on the first call (a plugin calls it at start, so that a missing file
 * stops the start rather than a sign-up). Its header is the `#` lines before the first entry: an entry
 * may begin with `#` itself.
 */
export function commonPasswords(): ReadonlySet<string> {
  loaded ??= parse(readFileSync(COMMON_PASSWORDS_FILE, 'utf8'));
  return loaded;
}

function parse(text: string): ReadonlySet<string> {
  const lines = text.split('\n');
  let first = 0;
  while (lines[first]?.startsWith('#') === true) first++;
  return new Set(lines.slice(first).filter((line) => line !== ''));
}

/** Whether a password, NFC-normalised and lower-cased, is on the list. */
export function isCommonPassword(lowercased: string): boolean {
  return commonPasswords().has(lowercased);
}
