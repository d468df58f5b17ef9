// Errors in Bitly's API v4 shape (its spec's `Error`): `{message, description, resource, errors}`,
// `message` Bitly's word for what went wrong (INVALID_ARG_LONG_URL, FORBIDDEN, NOT_FOUND), with
// our stable code beside it. Statuses are ours, except where Bitly answers otherwise: a missing or
// wrong key is Bitly's 403 FORBIDDEN, not our 401.

import type { ErrorRender, RenderedError } from '../api/errors.ts';
import { ERRORS, type ErrorCode } from '../errors.ts';

/** Bitly's `message` for a status, where no field is at fault. */
const MESSAGES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'FORBIDDEN',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  410: 'GONE',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_ENTITY',
  429: 'RATE_LIMIT_EXCEEDED',
  500: 'INTERNAL_ERROR',
  503: 'TEMPORARILY_UNAVAILABLE',
};

/** Our field names where Bitly's differ (the link rules name the target `url`). */
const BITLY_FIELDS: Readonly<Record<string, string>> = { url: 'long_url', alias: 'custom_bitlink' };

/** The field an error is about, in Bitly's names: the one it names, or for a target rule, long_url. */
function bitlyField(code: ErrorCode, field: string | undefined): string | undefined {
  if (field !== undefined) return BITLY_FIELDS[field] ?? field;
  if (code.startsWith('URL_')) return 'long_url';
  if (code === 'DOMAIN_UNKNOWN' || code === 'DOMAIN_NOT_VERIFIED') return 'domain';
  return undefined;
}

/** The render of a Bitly resource's errors (`resource`: bitlinks, user, groups, as Bitly names them). */
export function bitlyErrors(resource: string): ErrorRender {
  return (code, message, field): RenderedError => {
    const status = ERRORS[code].status;
    const at = status === 400 ? bitlyField(code, field) : undefined;
    const body = {
      message: at === undefined ? (MESSAGES[status] ?? 'BAD_REQUEST') : `INVALID_ARG_${at.toUpperCase()}`,
      description: message,
      resource,
      ...(at === undefined ? {} : { errors: [{ field: at, error_code: 'invalid', message }] }),
      code,
    };
    return { body: JSON.stringify(body), status: status === 401 ? 403 : status };
  };
}
