// Kutt's create and update bodies (POST and PATCH /api/v2/links) as ours, so that our rules then
// apply unchanged: the alias's shape, the target policy, the password's length, the limits.

import { AppError } from '../errors.ts';
import { stringField, withScheme } from './adapter.ts';
import type { CreateLinkBody, PatchLinkBody } from '../links/schemas.ts';
import type { LinkDetails } from '../links/store.ts';

export interface KuttCreateBody {
  target?: unknown;
  description?: unknown;
  expire_in?: unknown;
  password?: unknown;
  customurl?: unknown;
  reuse?: unknown;
  domain?: unknown;
}

export interface KuttUpdateBody {
  target?: unknown;
  address?: unknown;
  description?: unknown;
  expire_in?: unknown;
  password?: unknown;
}

/** Kutt's create body as ours: the same rules then apply (alias shape, target policy, limits). */
export function createBody(body: KuttCreateBody): CreateLinkBody {
  const target = stringField(body.target, 'target');
  if (target === undefined || target.trim() === '') throw new AppError('BODY_INVALID', 'Target is missing.', { field: 'target' });
  if (body.reuse !== undefined && body.reuse !== false)
    throw new AppError('BODY_INVALID', 'reuse is not supported: every create makes a new link.', { field: 'reuse' });
  const alias = stringField(body.customurl, 'customurl');
  const title = stringField(body.description, 'description');
  const password = stringField(body.password, 'password');
  const domain = stringField(body.domain, 'domain');
  const expiresIn = stringField(body.expire_in, 'expire_in');
  return {
    url: withScheme(target.trim(), 'http'),
    ...(alias === undefined || alias === '' ? {} : { alias }),
    ...(title === undefined || title === '' ? {} : { title }),
    ...(domain === undefined || domain === '' ? {} : { domain }),
    ...(expiresIn === undefined || expiresIn === '' ? {} : { expiresAt: expiryOf(expiresIn) }),
    ...(password === undefined || password === '' ? {} : { options: { password } }),
  };
}

/** Kutt's update: target, description and expire_in change; an address is a link's code, which never changes. */
export function patchBody(body: KuttUpdateBody, current: LinkDetails): PatchLinkBody {
  const address = stringField(body.address, 'address');
  if (address !== undefined && address !== '' && address !== current.code)
    throw new AppError('BODY_INVALID', 'A link’s address (its code) cannot change: create a new link.', { field: 'address' });
  if (body.password !== undefined && body.password !== '')
    throw new AppError('BODY_INVALID', 'Change a link’s password with PATCH /links/:code of this service’s own API.', {
      field: 'password',
    });
  const target = stringField(body.target, 'target');
  const title = stringField(body.description, 'description');
  const expiresIn = stringField(body.expire_in, 'expire_in');
  // As Kutt does, a field changes only when given a value (an empty one changes nothing).
  return {
    ...(target === undefined || target === '' ? {} : { url: withScheme(target.trim(), 'http') }),
    ...(title === undefined || title === '' ? {} : { title }),
    ...(expiresIn === undefined || expiresIn === '' ? {} : { expiresAt: expiryOf(expiresIn) }),
  };
}

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
  y: 31_557_600_000,
};
const UNIT_NAMES: Readonly<Record<string, string>> = {
  msec: 'ms',
  msecs: 'ms',
  millisecond: 'ms',
  milliseconds: 'ms',
  sec: 's',
  secs: 's',
  second: 's',
  seconds: 's',
  min: 'm',
  mins: 'm',
  minute: 'm',
  minutes: 'm',
  hr: 'h',
  hrs: 'h',
  hour: 'h',
  hours: 'h',
  day: 'd',
  days: 'd',
  week: 'w',
  weeks: 'w',
  yr: 'y',
  yrs: 'y',
  year: 'y',
  years: 'y',
};
const EXPIRE_SHAPE = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i;
const EXPIRE_INVALID = 'Expire format is invalid. Valid examples: 1m, 8h, 42 days.';

/** Kutt's expire_in ("2 minutes", "8h", "42 days": the forms of the `ms` package) as an RFC 3339 expiry from now. */
function expiryOf(expireIn: string, now = Date.now()): string {
  const match = EXPIRE_SHAPE.exec(expireIn.trim());
  if (match === null) throw new AppError('BODY_INVALID', EXPIRE_INVALID, { field: 'expire_in' });
  const unitName = (match[2] ?? '').toLowerCase();
  const unit = unitName === '' ? 'ms' : (UNIT_NAMES[unitName] ?? unitName);
  const perUnit = UNIT_MS[unit];
  if (perUnit === undefined) throw new AppError('BODY_INVALID', EXPIRE_INVALID, { field: 'expire_in' });
  const ms = Number(match[1]) * perUnit;
  if (ms < 60_000) throw new AppError('BODY_INVALID', 'Expire time should be more than 1 minute.', { field: 'expire_in' });
  const at = new Date(now + ms);
  if (!Number.isFinite(at.getTime())) throw new AppError('BODY_INVALID', EXPIRE_INVALID, { field: 'expire_in' });
  return at.toISOString();
}
