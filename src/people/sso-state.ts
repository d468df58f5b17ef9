// What a single sign-on keeps between its start and the provider's callback: the PKCE verifier, the
// state and nonce it sent, and where to go after. It rides in a cookie of its own, sealed with
// AES-256-GCM under a key derived from CODE_SECRET: the browser holds it, cannot read or change it,
// and nothing is written anywhere for a sign-in that is begun and never finished (anyone may begin
// one). The cookie binds the flow to the browser that started it: a callback URL opened in another
// browser finds no state to match (login CSRF). Its 10 minutes are checked inside the seal, whatever
// the browser does with Max-Age. No I/O. docs/sso.md.

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';

export interface SsoState {
  /** PKCE code_verifier (RFC 7636): the challenge sent was its S256. */
  readonly verifier: string;
  readonly state: string;
  readonly nonce: string;
  /** Where the browser goes once signed in: a path of the dashboard (safeNext). */
  readonly next: string;
  /** Milliseconds since the epoch after which the state is refused. */
  readonly expiresAt: number;
}

export const SSO_STATE_TTL_MS = 10 * 60_000;
const COOKIE = 'shortener_sso';
/** On an https BASE_URL: a `__Host-` cookie is refused unless Secure, host-only and for the whole site (no sibling may plant one). */
const SECURE_COOKIE = `__Host-${COOKIE}`;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bound into every seal: a blob sealed for another purpose (or a later format) under the same key does not open. */
const AAD = Buffer.from('shortener sso-state v1');
const MAX_SEALED_CHARS = 4000;

/** Seals `state` with `key` (32 bytes, deriveKey(codeSecret, 'sso-state')): base64url of IV, ciphertext and tag. */
export function sealState(key: Buffer, state: SsoState): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(AAD);
  const body = Buffer.concat([cipher.update(JSON.stringify(state), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

/** The state `sealed` holds if it was sealed with `key`, unaltered, and has not expired at `now`; else undefined. */
export function openState(key: Buffer, sealed: string | undefined, now: number): SsoState | undefined {
  if (sealed === undefined || sealed.length > MAX_SEALED_CHARS) return undefined;
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
  let text: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(AAD);
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
  const state = JSON.parse(text) as SsoState;
  return state.expiresAt > now ? state : undefined;
}

/** The cookie's name: `__Host-` on an https BASE_URL, as the session cookie's. */
export const stateCookieName = (httpsOnly: boolean): string => (httpsOnly ? SECURE_COOKIE : COOKIE);

/** The sealed state a request's cookie holds, or undefined. */
export function stateCookieOf(cookieHeader: string | undefined, httpsOnly: boolean): string | undefined {
  return cookieHeader === undefined ? undefined : parseCookie(cookieHeader)[stateCookieName(httpsOnly)];
}

/**
 * The Set-Cookie of a sealed state (or, with null, of its removal). SameSite=Lax, not Strict: the
 * callback is a top-level navigation from the provider's site, which Strict would send it without.
 */
export function stateSetCookie(sealed: string | null, httpsOnly: boolean, secure: boolean): string {
  return stringifySetCookie({
    name: stateCookieName(httpsOnly),
    value: sealed ?? '',
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: secure || httpsOnly,
    maxAge: sealed === null ? 0 : SSO_STATE_TTL_MS / 1000,
  });
}

const DASHBOARD = '/app/';

/**
 * Where a sign-in may send the browser after: a path of the dashboard on this origin (`/app/…`,
 * printable ASCII, no `//` or `\` a browser could read as another host), never the sign-in page
 * itself; anything else is the dashboard's start.
 */
export function safeNext(next: string | undefined): string {
  if (next === undefined || next.length > 2000 || !/^\/app(\/[\x21-\x7e]*)?$/.test(next)) return DASHBOARD;
  if (/[\\]|\/\//.test(next) || next.startsWith('/app/sign-in')) return DASHBOARD;
  return next;
}
