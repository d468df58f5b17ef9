// Passwords of protected links (link-options.ts password) and the cookie a correct one earns.
//
// A password is kept as scrypt (node:crypto, memory-hard: N = 2^14, r = 8, 16 MiB a hash) with a
// random salt, in the link's options as "scrypt$N$r$p$salt$hash"; hashing runs in libuv's pool,
// never on the event loop, as many at once as hash-slots.ts allows. The cookie says
// until when a browser may pass: "<expiry s>.<mac>", an HMAC-SHA256 under a key derived for passes
// alone (keys.ts) of the link, the expiry and the password's tag, so that a new password, or
// another link, or a later time, voids it. The tag (passTagOf) stands for the hash wherever the
// redirect needs one (the LRU, Redis): it tells passwords apart and helps no guesser. Checking a
// pass costs an HMAC, on the redirect path; a Cookie header's passes are bounded before any.

import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const N = 16_384;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
/** How long a correct password lets a browser through. */
export const PASS_SECONDS = 3600;
export const PASS_COOKIE = 'link-pass';
/** The purpose passes' key is derived for (keys.ts deriveKey). */
export const PASS_KEY_PURPOSE = 'link-passes';

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { ...options, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err === null ? resolve(key) : reject(err),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Whether `password` is the one `stored` was made from; false for a stored value in no format this reads. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, key] = stored.split('$');
  if (kind !== 'scrypt' || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64url');
  const derived = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return derived.length === expected.length && timingSafeEqual(derived, expected);
}

/** The tag of a stored hash: the same for the same hash, another for a new password (even the same one, by its salt). */
export function passTagOf(stored: string): string {
  return createHash('sha256').update(`link-pass-tag\n${stored}`).digest('base64url').slice(0, 22);
}

/** The most `link-pass` entries of one Cookie header that are checked; the rest are ignored. */
export const PASS_ENTRIES_MAX = 4;
/** A pass's shape: an expiry in seconds, a dot, an HMAC-SHA256 in base64url. */
const PASS_SHAPE = /^\d{1,12}\.[A-Za-z0-9_-]{43}$/;

function mac(key: Buffer, linkKey: string, expiry: number, tag: string): string {
  return createHmac('sha256', key).update(`${linkKey}\n${expiry}\n${tag}`).digest('base64url');
}

/** The cookie's value for a browser that gave the right password (tag `tag`) to link `linkKey` at `now` (ms). */
export function passValue(key: Buffer, linkKey: string, tag: string, now: number): string {
  const expiry = Math.floor(now / 1000) + PASS_SECONDS;
  return `${expiry}.${mac(key, linkKey, expiry, tag)}`;
}

/**
 * Whether the Cookie header holds a pass for link `linkKey` and password tag `tag` that is good at
 * `now` (ms). Only the first PASS_ENTRIES_MAX entries named link-pass are read, and only one of a
 * pass's shape costs an HMAC: a stuffed header costs no more than a short one.
 */
export function hasPass(cookieHeader: string | undefined, key: Buffer, linkKey: string, tag: string, now: number): boolean {
  if (cookieHeader === undefined) return false;
  let at = cookieHeader.indexOf(`${PASS_COOKIE}=`);
  let entries = 0;
  while (at !== -1 && entries < PASS_ENTRIES_MAX) {
    // A cookie's name starts the header or follows "; ".
    if (at === 0 || cookieHeader.charCodeAt(at - 1) === 0x20 || cookieHeader.charCodeAt(at - 1) === 0x3b) {
      entries++;
      const start = at + PASS_COOKIE.length + 1;
      const end = cookieHeader.indexOf(';', start);
      if (goodPass(cookieHeader.slice(start, end === -1 ? undefined : end).trim(), key, linkKey, tag, now)) return true;
    }
    at = cookieHeader.indexOf(`${PASS_COOKIE}=`, at + 1);
  }
  return false;
}

function goodPass(value: string, key: Buffer, linkKey: string, tag: string, now: number): boolean {
  if (!PASS_SHAPE.test(value)) return false;
  const dot = value.indexOf('.');
  const expiry = Number(value.slice(0, dot));
  if (expiry * 1000 <= now) return false;
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(mac(key, linkKey, expiry, tag));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
