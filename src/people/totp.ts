// An authenticator app's codes (TOTP, RFC 6238: six digits, a 30-second step, HMAC-SHA1, which is
// what every app reads from an otpauth:// URI), and its secret sealed for the database: AES-256-GCM
// under a key derived from CODE_SECRET (core/keys.ts), with the person's id as associated data, so a
// sealed secret moved to another person's row does not open. No I/O.

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

const PERIOD = 30;
const DIGITS = 6;
const SECRET_BYTES = 20;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** A code of the step before or after the server's is taken too: a phone's clock a little off. */
const WINDOW = 1;

export const newTotpSecret = (): Buffer => randomBytes(SECRET_BYTES);

/** iv ‖ tag ‖ ciphertext. */
export function sealSecret(key: Buffer, personId: number, secret: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(`totp:${personId}`));
  const sealed = Buffer.concat([cipher.update(secret), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

/** The secret `sealed` holds; throws when it was not sealed with `key` for this person (CODE_SECRET changed, or a row moved). */
export function openSecret(key: Buffer, personId: number, sealed: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES)).setAAD(Buffer.from(`totp:${personId}`));
  decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}

const secretOf = (secret: Buffer): Secret => new Secret({ buffer: Uint8Array.from(secret).buffer });

function totpOf(secret: Buffer, issuer = '', label = ''): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: DIGITS, period: PERIOD, secret: secretOf(secret) });
}

/** The secret in base32, as a person types it into an app that cannot scan. */
export const base32Of = (secret: Buffer): string => secretOf(secret).base32;

/** otpauth://totp/<issuer>:<account>?secret=…: what the QR code holds. */
export const totpUri = (secret: Buffer, issuer: string, account: string): string => totpOf(secret, issuer, account).toString();

/** A code as people type it: six digits, spaces allowed; undefined for anything else. */
export function cleanCode(raw: string): string | undefined {
  const code = raw.replace(/\s/g, '');
  return /^\d{6}$/.test(code) ? code : undefined;
}

/** The 30-second step `code` belongs to (within a step of `now`), or undefined for a wrong code. */
export function stepOf(secret: Buffer, code: string, now = Date.now()): number | undefined {
  const clean = cleanCode(code);
  if (clean === undefined) return undefined;
  const delta = totpOf(secret).validate({ token: clean, timestamp: now, window: WINDOW });
  return delta === null ? undefined : Math.floor(now / 1000 / PERIOD) + delta;
}

/** The URI as a QR code, in SVG (the dashboard shows it as an image). */
export function qrSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
