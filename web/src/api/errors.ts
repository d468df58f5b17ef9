import { ApiError, FALLBACKS, type Fallback } from './client.ts';

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
