import { useLocation } from 'preact-iso';
import type { ErrorCode } from '../../../src/errors.ts';
import { useAuth } from './context.ts';
import '../styles/sso.css';

/** What each code /auth/sso/callback sends back in `?error=` means for the person who tried (docs/sso.md#troubleshooting). */
const SSO_MESSAGES: Readonly<Record<string, string>> = {
  SSO_NOT_CONFIGURED: 'Single sign-on is not set up on this service. Sign in with your email address and password.',
  SSO_UNAVAILABLE: 'The single sign-on provider did not answer. Try again in a moment.',
  SSO_STATE_INVALID: 'That sign-in took longer than 10 minutes, or was started in another browser. Start it again.',
  SSO_FAILED: 'The single sign-on provider did not confirm who you are. Try again.',
  SSO_EMAIL_UNVERIFIED: 'Your single sign-on provider did not confirm your email address, so it cannot sign you in here.',
  SSO_EMAIL_DOMAIN_NOT_ACCEPTED:
    'There is no account with your email address, and no workspace takes people of its domain on their own: ask an admin to invite you.',
  SSO_IDENTITY_CONFLICT:
    'The account of your email address signs in with another identity at your provider: ask an admin of your workspace.',
  WORKSPACE_NOT_FOUND: 'You are not a member of any workspace: ask an admin to invite you.',
} satisfies Partial<Record<ErrorCode, string>>;

/** The message for `?error=`, or null without one; a code this page does not know is named, never any other text. */
export function ssoErrorMessage(code: string | undefined): string | null {
  if (code === undefined || code === '') return null;
  const known = SSO_MESSAGES[code];
  if (known !== undefined) return known;
  return /^[A-Z_]{1,60}$/.test(code) ? `Single sign-on did not work (${code}). Try again.` : 'Single sign-on did not work. Try again.';
}

/**
 * Signing in with single sign-on (when the service offers it): a link to /auth/sso/start, which leaves for the
 * provider and comes back signed in, to `next`. And what went wrong, when a sign-in came back with `?error=`.
 */
export function SsoSignIn() {
  const { options } = useAuth();
  const { query } = useLocation();
  const message = ssoErrorMessage(query['error']);
  const next = query['next'];
  const start = next === undefined ? '/auth/sso/start' : `/auth/sso/start?next=${encodeURIComponent(next)}`;
  return (
    <>
      {message !== null && (
        <p class="message message-error" role="alert">
          {message}
        </p>
      )}
      {options.sso && (
        <div class="sso-sign-in">
          <a class="button sso-button" href={start}>
            Sign in with {options.ssoName ?? 'single sign-on'}
          </a>
          <p class="sso-or" aria-hidden="true">
            or
          </p>
        </div>
      )}
    </>
  );
}
