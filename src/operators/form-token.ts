// The report form's token: the minute it was made and an HMAC of it with the host it was made for,
// under a key derived from CODE_SECRET. A report must carry one made here for this host within
// TOKEN_MAX_AGE_MS: another site's page cannot post reports through a visitor's browser (the form is
// public, so SameSite cookies protect nothing here), and a bot must load the form first. Pure.

import { createHmac, timingSafeEqual } from 'node:crypto';

export const TOKEN_MAX_AGE_MS = 2 * 3_600_000;

const mac = (key: Buffer, host: string, minute: number) =>
  createHmac('sha256', key).update(`${host}\n${minute}`).digest('base64url').slice(0, 32);

export function formToken(key: Buffer, host: string, now: number): string {
  const minute = Math.floor(now / 60_000);
  return `${minute}.${mac(key, host, minute)}`;
}

export function validFormToken(key: Buffer, host: string, token: unknown, now: number): boolean {
  if (typeof token !== 'string') return false;
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{32})$/.exec(token);
  if (match === null) return false;
  const minute = Number(match[1]);
  const age = now - minute * 60_000;
  if (age < -60_000 || age > TOKEN_MAX_AGE_MS) return false;
  return timingSafeEqual(Buffer.from(match[2] as string), Buffer.from(mac(key, host, minute)));
}
