// Keys derived from the deployment's secret (CODE_SECRET), one per purpose, so that a key leaked or
// misused in one place opens nothing in another. HKDF-SHA256 (RFC 5869), no I/O.
//
// Codes keep the derivation they always had (resolve/plugin.ts, resolve/code-space.ts): moving them
// to this one would change every generated code's permutation and switch off the impossible-code
// check on databases made before it.

import { hkdfSync } from 'node:crypto';

/** A 32-byte key for `purpose` (such as 'link-passes') from `secret`. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, '', `shortener ${purpose}`, 32));
}
