// Shlink's errors: RFC 7807 problem details (application/problem+json), {type, title, detail, status},
// with `invalidElements` naming the fields of bad input, as Shlink's REST API v3 answers them and its
// clients branch on `type`. Our stable code is beside them (`code`); an error Shlink has no type for
// keeps our status and gets a type of ours, `urn:shortener:error:<CODE>` (docs/compat.md#shlink).

import { STATUS_CODES } from 'node:http';
import type { RenderedError } from '../api/errors.ts';
import { ERRORS, type ErrorCode } from '../errors.ts';

const SHLINK = 'https://shlink.io/api/error/';
const INVALID_DATA = { type: `${SHLINK}invalid-data`, title: 'Invalid data' } as const;

/** Our codes Shlink has a type of its own for, with the status Shlink answers them with. */
const SHLINK_TYPES: Partial<Record<ErrorCode, { type: string; title: string; status?: number }>> = {
  ALIAS_TAKEN: { type: `${SHLINK}non-unique-slug`, title: 'Invalid custom slug', status: 400 },
  LINK_NOT_FOUND: { type: `${SHLINK}short-url-not-found`, title: 'Short URL not found' },
  DOMAIN_NOT_FOUND: { type: `${SHLINK}domain-not-found`, title: 'Domain not found' },
  API_KEY_REQUIRED: { type: `${SHLINK}missing-authentication`, title: 'Invalid authorization' },
  API_KEY_INVALID: { type: `${SHLINK}invalid-api-key`, title: 'Invalid API key' },
  ROUTE_NOT_FOUND: { type: `${SHLINK}not-found`, title: 'Not found' },
};

/** Our field names as Shlink's (a create's and an edit's). */
const FIELDS: Readonly<Record<string, string>> = {
  url: 'longUrl',
  alias: 'customSlug',
  expiresAt: 'validUntil',
  startsAt: 'validSince',
  'options.clickLimit': 'maxVisits',
  'options.forwardQuery': 'forwardQuery',
};

/** The field a code of bad input is about, where the error does not name one. */
const FIELD_OF_CODE: Partial<Record<ErrorCode, string>> = {
  ALIAS_INVALID: 'customSlug',
  ALIAS_RESERVED: 'customSlug',
  EXPIRES_AT_INVALID: 'validUntil',
  EXPIRES_AT_IN_PAST: 'validUntil',
  STARTS_AT_INVALID: 'validSince',
  STARTS_AT_NOT_BEFORE_EXPIRY: 'validSince',
  TITLE_INVALID: 'title',
  TAGS_INVALID: 'tags',
  CLICK_LIMIT_INVALID: 'maxVisits',
  DOMAIN_UNKNOWN: 'domain',
  DOMAIN_NOT_VERIFIED: 'domain',
};

/** An error as Shlink's problem details. */
export function shlinkProblem(code: ErrorCode, message: string, field?: string): RenderedError {
  const known = SHLINK_TYPES[code];
  const status = known?.status ?? ERRORS[code].status;
  const problem: Record<string, unknown> = known
    ? { type: known.type, title: known.title }
    : status === 400
      ? { ...INVALID_DATA }
      : { type: `urn:shortener:error:${code}`, title: STATUS_CODES[status] ?? 'Error' };
  problem.detail = message;
  problem.status = status;
  if (problem.type === INVALID_DATA.type) {
    const element =
      field === undefined ? (FIELD_OF_CODE[code] ?? (code.startsWith('URL_') ? 'longUrl' : undefined)) : (FIELDS[field] ?? field);
    problem.invalidElements = element === undefined ? [] : [element];
  }
  problem.code = code;
  return { body: JSON.stringify(problem), status, contentType: 'application/problem+json' };
}
