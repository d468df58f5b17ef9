// Which field of a people form an API error is about. The API names the field where an error could be any of
// several (`error.field`); the codes of one field each are mapped here, as errors.ts does for a link's.
import type { ErrorCode } from '../../../src/errors.ts';
import type { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../src/people/passwords.ts';
import { ApiError, errorMessage } from '../api/errors.ts';

const PASSWORD_MIN = 8 satisfies typeof PASSWORD_MIN_LENGTH;
const PASSWORD_MAX = 256 satisfies typeof PASSWORD_MAX_LENGTH;

const FIELD_OF_CODE: Readonly<Record<string, string>> = {
  NAME_INVALID: 'name',
  EMAIL_INVALID: 'email',
  EMAIL_TAKEN: 'email',
  ALREADY_MEMBER: 'email',
  PASSWORD_TOO_SHORT: 'password',
  PASSWORD_TOO_LONG: 'password',
  PASSWORD_TOO_COMMON: 'password',
  SETUP_TOKEN_INVALID: 'token',
  CURRENT_PASSWORD_WRONG: 'currentPassword',
} satisfies Partial<Record<ErrorCode, string>>;

/**
 * The field of a form's `fields` an API error is about, or null (an error of the whole form). `renamed` maps the
 * API's name to the form's where they differ (a password change calls the new password `newPassword`).
 */
export function personFieldIn<F extends string>(
  error: unknown,
  fields: readonly F[],
  renamed: Readonly<Partial<Record<string, F>>> = {},
): F | null {
  if (!(error instanceof ApiError)) return null;
  const field = error.field ?? FIELD_OF_CODE[error.code] ?? null;
  if (field === null) return null;
  return renamed[field] ?? fields.find((f) => f === field) ?? null;
}

/** The API's password rules, for the hint under a new password. */
export const PASSWORD_HINT = `At least ${PASSWORD_MIN} characters; a long phrase is easiest to remember. Not a common password, nor your email or name.`;

/** The API's messages are written for API clients ("password must be…"); a form's field says it for people. */
const FIELD_MESSAGES: Readonly<Record<string, string>> = {
  NAME_INVALID: 'Use 1 to 100 characters, without control characters.',
  EMAIL_INVALID: 'Enter an email address, such as ada@example.com.',
  PASSWORD_TOO_SHORT: `Use at least ${PASSWORD_MIN} characters.`,
  PASSWORD_TOO_LONG: `Use at most ${PASSWORD_MAX} characters.`,
  PASSWORD_TOO_COMMON: 'This password is too common, or too close to your email address or name: choose another.',
} satisfies Partial<Record<ErrorCode, string>>;

/** How an API error reads on a people form (useFormSubmit's messageOf). */
export function personMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 429) return tooManyAttempts(error);
    const message = FIELD_MESSAGES[error.code];
    if (message !== undefined) return message;
  }
  return errorMessage(error);
}

/** Checks of a new password before it is sent, counted as the API counts (code points); the API checks again, and also refuses common ones. */
export function newPasswordProblem(password: string): string | null {
  // Code points, not UTF-16 units nor what a person sees as one character: what the API counts.
  let length = 0;
  for (const _ of password.normalize('NFC')) length++;
  if (length < PASSWORD_MIN) return FIELD_MESSAGES['PASSWORD_TOO_SHORT'] ?? null;
  if (length > PASSWORD_MAX) return FIELD_MESSAGES['PASSWORD_TOO_LONG'] ?? null;
  return null;
}

/** The message for a 429 of a sign-in (or of any limited form). */
export function tooManyAttempts(error: ApiError): string {
  const wait = error.retryAfter ?? 60;
  return `Too many attempts. Try again in ${wait} second${wait === 1 ? '' : 's'}.`;
}
