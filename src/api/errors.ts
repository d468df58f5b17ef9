// Every error answer is {"error": {"code", "message"}} with the status of its code.
// Fastify's own errors (body parsing, validation) are translated to our stable codes here; errors
// of requests that never became requests are the edge's (edge/client-errors.ts).

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERRORS, errorBody, errorHeaders, type ErrorCode } from '../errors.ts';

const FASTIFY_CODES: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BODY_EMPTY',
  FST_ERR_CTP_INVALID_JSON_BODY: 'BODY_INVALID_JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
};

const BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  404: 'ROUTE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'BODY_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/**
 * Errors Fastify raises before routing (Fastify's `frameworkErrors` option). A path that is not
 * valid percent-encoding, or longer than any parameter may be, cannot name a link: 404 as for
 * any impossible code.
 */
export function onFrameworkError(err: FastifyError, _request: unknown, reply: FastifyReply): void {
  const impossiblePath = err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH';
  void sendError(reply, impossiblePath ? 'LINK_NOT_FOUND' : 'BAD_REQUEST');
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's own code for a query string that does not validate (a parameter repeated, unknown or of the wrong shape). */
    queryError?: ErrorCode;
    /** The body's media type where it is not JSON, for the message of a 415. */
    bodyType?: string;
  }
}

/**
 * An error answer's body from its code, message and field: ours by default (errorBody); a compatible
 * API's in its own shape, and, where that API answers some error with another status or media type
 * than ours (Shlink: a taken slug is a 400, as application/problem+json), with those.
 */
export type ErrorRender = (code: ErrorCode, message: string, field?: string) => string | RenderedError;

export interface RenderedError {
  readonly body: string;
  /** The status, where it is not the code's own. */
  readonly status?: number;
  readonly contentType?: string;
}

/** What an error a route threw is, as our code, message and field (a fault of ours is INTERNAL, and logged). */
export function errorOf(err: FastifyError | AppError, request: FastifyRequest): { code: ErrorCode; message?: string; field?: string } {
  if (err instanceof AppError) return { code: err.code, message: err.message, ...(err.field === undefined ? {} : { field: err.field }) };
  if (err.validation !== undefined) {
    const code =
      err.validationContext === 'body'
        ? 'BODY_INVALID'
        : err.validationContext === 'querystring'
          ? (request.routeOptions.config.queryError ?? 'BAD_REQUEST')
          : 'BAD_REQUEST';
    return { code, message: validationMessage(err, request.query) };
  }
  const mapped = err.code === undefined ? undefined : FASTIFY_CODES[err.code];
  const bodyType = request.routeOptions.config.bodyType;
  if (mapped === 'UNSUPPORTED_MEDIA_TYPE' && bodyType !== undefined) return { code: mapped, message: `Send the body as ${bodyType}.` };
  if (mapped !== undefined) return { code: mapped };
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return { code: BY_STATUS[status] ?? 'BAD_REQUEST' };
  request.log.error({ err }, 'unhandled error');
  return { code: 'INTERNAL' };
}

/**
 * Every error of `app`'s routes answered with its status, headers and a body by `render`; and its
 * unknown paths, unless `notFound` is false (a context without a prefix of its own: the root's
 * not-found handler is the one Fastify calls there, and it allows no second).
 */
export function registerErrorHandlers(app: FastifyInstance, render: ErrorRender = errorBody, { notFound = true } = {}): void {
  app.setErrorHandler(function onError(err: FastifyError | AppError, request, reply) {
    const { code, message, field } = errorOf(err, request);
    return sendError(reply, code, message, field, render);
  });
  if (!notFound) return;
  app.setNotFoundHandler(function onNotFound(_request, reply) {
    return sendError(reply, 'ROUTE_NOT_FOUND', undefined, undefined, render);
  });
}

function sendError(
  reply: FastifyReply,
  code: ErrorCode,
  message: string = ERRORS[code].message,
  field?: string,
  render: ErrorRender = errorBody,
): FastifyReply {
  const rendered = render(code, message, field);
  reply.headers(errorHeaders(code));
  if (typeof rendered === 'string') return reply.code(ERRORS[code].status).send(rendered);
  if (rendered.contentType !== undefined) reply.type(rendered.contentType);
  return reply.code(rendered.status ?? ERRORS[code].status).send(rendered.body);
}

function validationMessage(err: FastifyError, query: unknown): string {
  const first = err.validation?.[0];
  if (first === undefined) return ERRORS.BODY_INVALID.message;
  const context = err.validationContext ?? 'body';
  const at = first.instancePath === '' ? context : `${context}${first.instancePath.replaceAll('/', '.')}`;
  const params = first.params;
  // The query parser makes an array of a parameter given twice.
  const parameter = first.instancePath.slice(1);
  if (context === 'querystring' && Array.isArray((query as Record<string, unknown> | null)?.[parameter])) {
    return `The query parameter "${parameter}" is given more than once.`;
  }
  if (first.keyword === 'additionalProperties') return `${at} has an unknown field "${String(params.additionalProperty)}".`;
  if (first.keyword === 'required') return `${at} is missing the field "${String(params.missingProperty)}".`;
  return `${at} ${first.message ?? 'is invalid'}.`;
}
