import { ApiError } from './api.ts';

export type LinkField = 'url' | 'alias' | 'expiresAt' | 'title' | 'tags';

/** The form field an API error code is about, or null for an error of the whole form. */
export function linkFieldOf(code: string): LinkField | null {
  if (code.startsWith('URL_')) return 'url';
  if (code.startsWith('ALIAS_')) return 'alias';
  if (code.startsWith('EXPIRES_AT_')) return 'expiresAt';
  if (code === 'TITLE_INVALID') return 'title';
  if (code === 'TAGS_INVALID') return 'tags';
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
