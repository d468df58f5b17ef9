// Passwords of protected links (link-options.ts password) and the cookie a correct one earns.
//
// A password is kept as scrypt (node:crypto, memory-hard: N = 2^14, r = 8, 16 MiB a hash) with a
// random salt, in the link's options as "scrypt$N$r$p$salt$hash"; hashing runs in libuv's pool,
// never on the event loop. The cookie says until when a browser may pass: "<expiry s>.<mac>", an
// HMAC-SHA256 under the deployment's secret of the link, the expiry and the hash's salt, so that a
// new password, or another link, or a later time, voids it. Checking one costs an HMAC, on the
// redirect path.

import { createHmac, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const N = 16_384;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
/** How long a correct password lets a browser through. */
export const PASS_SECONDS = 3600;
export const PASS_COOKIE = 'link-pass';

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

function mac(secret: string, linkKey: string, expiry: number, stored: string): string {
  // The salt stands for the password: a new password voids every cookie of the old one.
  const salt = stored.split('$')[4] ?? '';
  return createHmac('sha256', secret).update(`${linkKey}\n${expiry}\n${salt}`).digest('base64url');
}

/** The cookie's value for a browser that gave the right password to link `linkKey` at `now` (ms). */
export function passValue(secret: string, linkKey: string, stored: string, now: number): string {
  const expiry = Math.floor(now / 1000) + PASS_SECONDS;
  return `${expiry}.${mac(secret, linkKey, expiry, stored)}`;
}

/** Whether the Cookie header holds a pass for link `linkKey` and password `stored` that is good at `now` (ms). */
export function hasPass(cookieHeader: string | undefined, secret: string, linkKey: string, stored: string, now: number): boolean {
  if (cookieHeader === undefined) return false;
  let at = cookieHeader.indexOf(`${PASS_COOKIE}=`);
  while (at !== -1) {
    // A cookie's name starts the header or follows "; ".
    if (at === 0 || cookieHeader.charCodeAt(at - 1) === 0x20 || cookieHeader.charCodeAt(at - 1) === 0x3b) {
      const start = at + PASS_COOKIE.length + 1;
      const end = cookieHeader.indexOf(';', start);
      if (goodPass(cookieHeader.slice(start, end === -1 ? undefined : end).trim(), secret, linkKey, stored, now)) return true;
    }
    at = cookieHeader.indexOf(`${PASS_COOKIE}=`, at + 1);
  }
  return false;
}

function goodPass(value: string, secret: string, linkKey: string, stored: string, now: number): boolean {
  const dot = value.indexOf('.');
  if (dot === -1 || !/^\d{1,12}$/.test(value.slice(0, dot))) return false;
  const expiry = Number(value.slice(0, dot));
  if (expiry * 1000 <= now) return false;
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(mac(secret, linkKey, expiry, stored));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
