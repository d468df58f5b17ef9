// Dub's error answers: {"error": {"code", "message", "doc_url"}} with Dub's status for its code, so
// that Dub's SDK raises its own error classes (BadRequest, NotFound, UnprocessableEntity, ...); our
// stable code rides beside it (`"code": "LINK_NOT_FOUND"`, docs/errors.md). Dub's routes have no
// prefix of their own, so Fastify's not-found handler stays ours; every error they throw comes here.

import type { FastifyInstance } from 'fastify';
import { registerErrorHandlers } from '../api/errors.ts';
import { ERRORS, type ErrorCode } from '../errors.ts';

/** Dub's error codes (its SDK's enum), each with the status Dub answers it with. */
const DUB_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable_entity: 422,
  rate_limit_exceeded: 429,
  internal_server_error: 500,
} as const;
export type DubCode = keyof typeof DUB_STATUS;

/** Ours that Dub answers 400 (a request it cannot read); every other 400 of ours is input Dub's schemas refuse: 422. */
const UNREADABLE: ReadonlySet<ErrorCode> = new Set(['BAD_REQUEST', 'BODY_INVALID_JSON', 'BODY_EMPTY', 'HOST_INVALID']);

/**
 * Dub's code and status for one of ours. Where Dub has no status of the kind (405, 413, 415, 503),
 * ours stays, with Dub's nearest code: the SDK raises its generic error for those.
 */
export function dubErrorOf(code: ErrorCode): { code: DubCode; status: number } {
  const status = ERRORS[code].status;
  if (status === 400) return UNREADABLE.has(code) ? { code: 'bad_request', status } : { code: 'unprocessable_entity', status: 422 };
  if (status === 401) return { code: 'unauthorized', status };
  if (status === 403) return { code: 'forbidden', status };
  // A link that has expired or been disabled is still found by the API; 410s come from redirects only.
  if (status === 404 || status === 410) return { code: 'not_found', status: 404 };
  if (status === 409) return { code: 'conflict', status };
  if (status === 422) return { code: 'unprocessable_entity', status };
  if (status === 429) return { code: 'rate_limit_exceeded', status };
  if (status >= 500) return { code: 'internal_server_error', status };
  return { code: 'bad_request', status };
}

/** Dub's error body for one of ours: Dub's code, our message, a link to Dub's page on that code, our code beside. */
export function dubErrorBody(code: ErrorCode, message: string = ERRORS[code].message): { status: number; body: string } {
  const dub = dubErrorOf(code);
  const docUrl = `https://dub.co/docs/api-reference/errors#${dub.code.replaceAll('_', '-')}`;
  return { status: dub.status, body: JSON.stringify({ error: { code: dub.code, message, doc_url: docUrl }, code }) };
}

/** Every error of `app`'s routes answered in Dub's shape (its unknown paths stay the root's: Dub's routes have no prefix). */
export function registerDubErrors(app: FastifyInstance): void {
  registerErrorHandlers(app, (code, message) => dubErrorBody(code, message), { notFound: false });
}
