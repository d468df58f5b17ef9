// The API's errors as the dashboard meets them: an ApiError with the stable code of the answer (or NETWORK_ERROR),
// the message people are shown, and the field of the form it is about.
import { FALLBACKS, type Fallback } from '../domains/api.ts';

/** An answer that is not a success, or no answer at all (status 0, code NETWORK_ERROR). */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  /** Seconds from the Retry-After header of a 429 or 503, when there is one. */
  readonly retryAfter: number | null;
  /** The request body's field the error is about, when the API names one (a domain's fallback URLs). */
  readonly field: string | null;

  constructor(status: number, code: string, message: string, retryAfter: number | null = null, field: string | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
    this.field = field;
  }
}

/** An error answer as an ApiError; the field it concerns comes from `error.details.field` (or `error.field`). */
export async function readError(response: Response): Promise<ApiError> {
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  try {
    const body = (await response.json()) as {
      error?: { code?: unknown; message?: unknown; field?: unknown; details?: { field?: unknown } };
    };
    const { code, message, field, details } = body.error ?? {};
    const named = details?.field ?? field;
    if (typeof code === 'string' && typeof message === 'string') {
      return new ApiError(response.status, code, message, retryAfter, typeof named === 'string' ? named : null);
    }
  } catch {
    // Not JSON (a proxy's error page, say): fall through to a generic error.
  }
  return new ApiError(
    response.status,
    `HTTP_${response.status}`,
    `The service answered ${response.status} ${response.statusText}.`,
    retryAfter,
  );
}

function parseRetryAfter(value: string | null): number | null {
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
export type LinkField = 'url' | 'domain' | 'alias' | 'expiresAt' | 'title' | 'tags';
export type DomainField = 'host' | Fallback;
export type WebhookField = 'url' | 'events' | 'description';

/** The form field an API error code is about, or null for an error of the whole form. */
export function linkFieldOf(code: string): LinkField | null {
  if (code.startsWith('URL_')) return 'url';
  if (code === 'DOMAIN_UNKNOWN') return 'domain';
  if (code.startsWith('ALIAS_')) return 'alias';
  if (code.startsWith('EXPIRES_AT_')) return 'expiresAt';
  if (code === 'TITLE_INVALID') return 'title';
  if (code === 'TAGS_INVALID') return 'tags';
  return null;
}

const FALLBACK_FIELDS: ReadonlySet<string> = new Set(FALLBACKS);

/**
 * The domain form's field an API error is about: the host's own codes, or a fallback URL's code (the same codes
 * as a link's URL) on the field the error names, or on the only fallback `sent` if it names none; null for an
 * error of the whole form.
 */
export function domainFieldOf(error: { code: string; field: string | null }, sent: readonly Fallback[]): DomainField | null {
  if (error.code === 'DOMAIN_INVALID' || error.code === 'DOMAIN_TAKEN') return 'host';
  if (!error.code.startsWith('URL_')) return null;
  if (error.field !== null) return FALLBACK_FIELDS.has(error.field) ? (error.field as Fallback) : null;
  return sent.length === 1 ? (sent[0] ?? null) : null;
}

const WEBHOOK_FIELDS: ReadonlySet<string> = new Set<WebhookField>(['url', 'events', 'description']);

/** The webhook form's field an API error is about (the API names it; the code says it too), or null for the whole form. */
export function webhookFieldOf(error: { code: string; field: string | null }): WebhookField | null {
  if (error.field !== null) return WEBHOOK_FIELDS.has(error.field) ? (error.field as WebhookField) : null;
  if (error.code.startsWith('URL_')) return 'url';
  if (error.code === 'WEBHOOK_EVENTS_INVALID') return 'events';
  if (error.code === 'WEBHOOK_DESCRIPTION_INVALID') return 'description';
  return null;
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
