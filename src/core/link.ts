// Links and the rules for creating one. Pure: no I/O.

import type { ErrorCode } from '../errors.ts';
import { aliasProblem, type ShortCode } from './codes.ts';
import type { TargetPolicy } from './target-policy.ts';
import { checkTargetUrl } from './url-rules.ts';

export interface Link {
  readonly code: ShortCode;
  readonly url: string;
  readonly expiresAt: Date | null;
  readonly disabled: boolean;
  /** Deleted links keep their row (their code is never handed out again) and answer 404. */
  readonly deleted: boolean;
  /** 0 when created, one more at each change: of two states of a link, the newer has the higher. */
  readonly version: number;
}

/** The body of POST /links once its JSON shape has been checked. */
export interface CreateLinkBody {
  url: string;
  alias?: string | undefined;
  expiresAt?: string | null | undefined;
}

export interface LinkRequest {
  readonly url: string;
  readonly alias: ShortCode | undefined;
  readonly expiresAt: Date | null;
}

export type LinkRequestVerdict = { ok: true; request: LinkRequest } | { ok: false; code: ErrorCode };

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
/** Links may expire at most this far ahead; later means "never", which is null. */
const MAX_EXPIRY_MS = 100 * 365 * 24 * 3600 * 1000;

export function checkLinkRequest(body: CreateLinkBody, policy: TargetPolicy, now: number): LinkRequestVerdict {
  const target = checkTargetUrl(body.url, policy);
  if (!target.ok) return target;
  let alias: ShortCode | undefined;
  if (body.alias !== undefined) {
    const problem = aliasProblem(body.alias);
    if (problem !== undefined) return { ok: false, code: problem };
    alias = body.alias as ShortCode;
  }
  let expiresAt: Date | null = null;
  if (body.expiresAt !== undefined && body.expiresAt !== null) {
    const at = checkExpiresAt(body.expiresAt, now);
    if (!(at instanceof Date)) return { ok: false, code: at };
    expiresAt = at;
  }
  return { ok: true, request: { url: target.url, alias, expiresAt } };
}

/** An expiry as given to a create or a change: a date, or why it is refused. */
export function checkExpiresAt(text: string, now: number): Date | 'EXPIRES_AT_INVALID' | 'EXPIRES_AT_IN_PAST' {
  const at = parseDateTime(text);
  if (at === undefined || at.getTime() - now > MAX_EXPIRY_MS) return 'EXPIRES_AT_INVALID';
  if (at.getTime() <= now) return 'EXPIRES_AT_IN_PAST';
  return at;
}

/** An RFC 3339 date-time with an explicit zone; impossible dates (Feb 30) are refused. */
export function parseDateTime(text: string): Date | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
