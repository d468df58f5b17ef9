import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { useState } from 'preact/hooks';
import { ApiError } from '../../api/errors.ts';
import { useAuth } from '../../auth/context.ts';
import { ErrorMessage } from '../../shared/Field.tsx';
import { personMessage } from '../fields.ts';
import { passkeyProblem, signInWithPasskey } from './api.ts';
import './second-factors.css';

/**
 * "Sign in with a passkey": no email asked, the browser offers the passkeys it holds for this service (POST
 * /auth/passkey/options, then /auth/passkey/sign-in). Where the service does not offer passkeys (BASE_URL is not a
 * secure origin) or the browser has no WebAuthn, it says so instead of a button that cannot work.
 */
export function PasskeySignIn() {
  const { api, options, signedIn } = useAuth();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  if (!options.passkeys) return null;
  if (!browserSupportsWebAuthn()) return <p class="after-form muted">This browser cannot use passkeys: sign in with your password.</p>;

  const go = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      signedIn(await signInWithPasskey(api));
    } catch (caught) {
      setError(
        caught instanceof ApiError && caught.code === 'PASSKEY_INVALID'
          ? 'This passkey could not sign you in here. It may have been removed from your account: sign in with your password.'
          : (passkeyProblem(caught) ?? personMessage(caught)),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="passkey-sign-in">
      <p class="or" aria-hidden="true">
        or
      </p>
      {error !== null && <ErrorMessage>{error}</ErrorMessage>}
      <button type="button" class="button-wide" onClick={() => void go()} aria-disabled={busy}>
        {busy ? 'Waiting for the passkey…' : 'Sign in with a passkey'}
      </button>
    </div>
  );
}
