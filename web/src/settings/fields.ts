// Where an API error of a settings form goes, and how it reads there. The API names the field (`brand.logo`,
// `defaultDomain`, `sessionHours`); its messages are written for API clients, these for people.
import type { ErrorCode } from '../../../src/errors.ts';
import { ApiError } from '../api/errors.ts';
import { personMessage } from '../people/fields.ts';

/** The field of `fields` an API error names, or null (an error of the whole form). */
export function settingsFieldIn<F extends string>(error: unknown, fields: readonly F[]): F | null {
  if (!(error instanceof ApiError) || error.field === null) return null;
  return fields.find((field) => field === error.field) ?? null;
}

const MESSAGES: Readonly<Record<string, string>> = {
  BRAND_NAME_INVALID: 'Use 1 to 60 characters, without control characters.',
  BRAND_COLOR_INVALID: 'Enter a colour code such as #1a6ac8 or #16c.',
  BRAND_LOGO_INVALID: 'Choose an image file.',
  BRAND_LOGO_TYPE: 'Choose a PNG, JPEG or WebP image (SVG is not taken: it can carry script).',
  BRAND_LOGO_TOO_LARGE: 'Choose an image of at most 32 KB.',
  DEFAULT_DOMAIN_UNKNOWN: 'This domain is not one of this workspace’s: choose another.',
  DOMAIN_NOT_VERIFIED: 'This domain is not verified yet: verify it on the Domains page first, or choose another.',
  SESSION_HOURS_INVALID: 'Enter a whole number of hours from 1 to 8760 (365 days), or leave it empty.',
} satisfies Partial<Record<ErrorCode, string>>;

/** How an API error reads on a settings form (useFormSubmit's messageOf). */
export function settingsMessage(error: unknown): string {
  return (error instanceof ApiError ? MESSAGES[error.code] : undefined) ?? personMessage(error);
}
