// A workspace's brand as people send it (docs/settings.md): a name, a colour and a logo, checked
// here before they reach the columns of migrations/0019_workspace_brand.sql. Pure: no I/O.
//
// A logo travels as a data: URL and is stored as its bytes. Its type is read from the bytes (their
// magic numbers), not from the URL's claim: SVG is refused since it can carry script.

import type { ErrorCode } from '../errors.ts';

export const BRAND_NAME_MAX_LENGTH = 60;
/** The most bytes of a logo, decoded. */
export const BRAND_LOGO_MAX_BYTES = 32 * 1024;
/** The longest data: URL that may hold such a logo: its base64 plus a prefix. */
export const BRAND_LOGO_MAX_URL_LENGTH = Math.ceil(BRAND_LOGO_MAX_BYTES / 3) * 4 + 64;

export type LogoType = 'image/png' | 'image/jpeg' | 'image/webp';

export interface Logo {
  readonly type: LogoType;
  readonly bytes: Buffer;
}

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly code: ErrorCode };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const refused = (code: ErrorCode): Checked<never> => ({ ok: false, code });

/** A brand name, trimmed: 1 to 60 characters without control characters. */
export function checkBrandName(raw: string): Checked<string> {
  const name = raw.trim();
  return name.length === 0 || name.length > BRAND_NAME_MAX_LENGTH || /\p{Cc}/u.test(name) ? refused('BRAND_NAME_INVALID') : ok(name);
}

/** #rgb or #rrggbb, in either case; stored as lowercase #rrggbb. */
export function checkBrandColor(raw: string): Checked<string> {
  const color = raw.trim().toLowerCase();
  if (/^#[0-9a-f]{6}$/.test(color)) return ok(color);
  if (/^#[0-9a-f]{3}$/.test(color)) return ok(`#${color.slice(1).replace(/./g, (digit) => digit + digit)}`);
  return refused('BRAND_COLOR_INVALID');
}

const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/i;

/** A logo from its data: URL: BRAND_LOGO_INVALID (not a base64 data: URL), BRAND_LOGO_TOO_LARGE, BRAND_LOGO_TYPE. */
export function checkBrandLogo(url: string): Checked<Logo> {
  if (url.length > BRAND_LOGO_MAX_URL_LENGTH) return refused('BRAND_LOGO_TOO_LARGE');
  const match = DATA_URL.exec(url);
  const base64 = match?.[2];
  if (base64 === undefined || base64.length % 4 !== 0 || base64.length === 0) return refused('BRAND_LOGO_INVALID');
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length > BRAND_LOGO_MAX_BYTES) return refused('BRAND_LOGO_TOO_LARGE');
  const type = imageTypeOf(bytes);
  return type === undefined ? refused('BRAND_LOGO_TYPE') : ok({ type, bytes });
}

/** The type of an image by its first bytes: PNG, JPEG or WebP, else undefined. */
export function imageTypeOf(bytes: Uint8Array): LogoType | undefined {
  const starts = (magic: readonly number[], at = 0) => magic.every((byte, i) => bytes[at + i] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  // RIFF....WEBP
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

/** The data: URL of a stored logo. */
export const logoDataUrl = (logo: Logo): string => `data:${logo.type};base64,${logo.bytes.toString('base64')}`;
