// The API's errors as the dashboard meets them: an ApiError with the stable code of the answer (src/errors.ts),
// the message people are shown, and the body field it is about, which a form shows the error next to.
import { asShortenerError } from '../../../src/client/client.ts';
import type { ErrorCode } from '../../../src/errors.ts';

/** The API's codes, and the dashboard's own for no answer and for an answer that is not the API's. */
export type ApiErrorCode = ErrorCode | 'NETWORK_ERROR' | `HTTP_${number}`;

/** An answer that is not a success, or no answer at all (status 0, code NETWORK_ERROR). */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly status: number;
  /** Seconds from the Retry-After header of a 429 or 503, when there is one. */
  readonly retryAfter: number | null;
  /** The request body's field the error is about, when the API names one (ErrorBody's `field`). */
  readonly field: string | null;

  constructor(status: number, code: ApiErrorCode, message: string, retryAfter: number | null = null, field: string | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
    this.field = field;
  }
}

const NOT_REACHED = 'The service could not be reached. Check your connection and try again.';

/**
 * What an operation of the typed client threw (a ShortenerError, src/client/client.ts) as an ApiError: the API's
 * code, message and field; for an answer that is not the API's (a proxy's error page, say), its status.
 */
export function toApiError(thrown: unknown, response: Response | undefined): ApiError {
  const error = asShortenerError(thrown, response);
  if (error.code === 'NETWORK_ERROR') return new ApiError(0, 'NETWORK_ERROR', NOT_REACHED);
  const retryAfter = parseRetryAfter(response?.headers.get('retry-after') ?? null);
  if (error.code === `HTTP_${error.status}`) {
    const statusText = response?.statusText ?? '';
    return new ApiError(error.status, `HTTP_${error.status}`, `The service answered ${error.status} ${statusText}.`, retryAfter);
  }
  return new ApiError(error.status, error.code as ErrorCode, error.message, retryAfter, error.field ?? null);
}

function parseRetryAfter(value: string | null): number | null {
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

// The server names the field (`error.field`) where an error could be any of several fields' (a link's options, a
// domain's fallbacks, a webhook's fields). A link's own fields have codes of their own, each one field's: these.
const UNNAMED_FIELDS: Readonly<Record<string, string>> = {
  URL_INVALID: 'url',
  URL_NOT_ABSOLUTE: 'url',
  URL_SCHEME_NOT_ALLOWED: 'url',
  URL_TOO_LONG: 'url',
  URL_CREDENTIALS_NOT_ALLOWED: 'url',
  URL_CONTROL_CHARACTERS: 'url',
  URL_SELF_REFERENCE: 'url',
  URL_PRIVATE_ADDRESS: 'url',
  URL_DOMAIN_BLOCKED: 'url',
  URL_SHORTENER_NOT_ALLOWED: 'url',
  ALIAS_INVALID: 'alias',
  ALIAS_RESERVED: 'alias',
  ALIAS_TAKEN: 'alias',
  EXPIRES_AT_INVALID: 'expiresAt',
  EXPIRES_AT_IN_PAST: 'expiresAt',
  TITLE_INVALID: 'title',
  TAGS_INVALID: 'tags',
  DOMAIN_UNKNOWN: 'domain',
} satisfies Partial<Record<ErrorCode, string>>;

/** The request body's field an API error is about (`url`, `options.targets[1].url`…); null: the whole request's. */
export function fieldOf(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  return error.field ?? UNNAMED_FIELDS[error.code] ?? null;
}

/** The field of a form's `fields` an API error is about; null when the form has no such field: an error of the whole form. */
export function fieldIn<F extends string>(error: unknown, fields: readonly F[]): F | null {
  const field = fieldOf(error);
  return fields.find((f) => f === field) ?? null;
}

/** The message to show for any error thrown by an API call. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.retryAfter !== null && (error.status === 429 || error.status === 503)) {
      return `${error.message} Try again in ${error.retryAfter} second${error.retryAfter === 1 ? '' : 's'}.`;
    }
    return error.message;
  }
  console.error(error);
  return 'Something went wrong. Try again.';
}

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}
