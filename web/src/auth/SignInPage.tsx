import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiClient, Session } from '../api/client.ts';
import { ApiError, errorMessage } from '../api/errors.ts';
import { Field } from '../shared/Field.tsx';
import { Page } from '../shared/Page.tsx';
import { useFormSubmit } from '../shared/use-form-submit.ts';

interface SignInPageProps {
  api: ApiClient;
  /** Why the person is here again (session expired, signed out). */
  message: string | null;
  onSignedIn: (session: Session) => void;
}

/** Trades an API key for a session cookie. The key lives only in this field: never stored by the browser. */
export function SignInPage({ api, message, onSignedIn }: SignInPageProps) {
  const [key, setKey] = useState('');
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => input.current?.focus(), []);

  const send = async () => {
    const session = await api.signIn(key.trim());
    setKey('');
    onSignedIn(session);
  };
  const { busy, errors, submit } = useFormSubmit<'key'>(send, {
    check: () => (key.trim() === '' ? { key: 'Enter your API key.' } : null),
    // The form's only field: every error is about the key.
    placeOf: () => 'key',
    controlOf: () => 'api-key',
    messageOf: signInError,
  });

  return (
    <div class="narrow">
      <Page title="Sign in">
        {message !== null && (
          <p class="message message-info" role="status">
            {message}
          </p>
        )}
        <form class="form" onSubmit={submit} noValidate>
          <Field
            id="api-key"
            label="API key"
            hint="Your key starts with sk_. It is sent once to start a session and is not kept in this browser."
            error={errors.key}
            live
          >
            {(control) => (
              <input
                {...control}
                ref={input}
                type="password"
                name="key"
                autoComplete="off"
                spellcheck={false}
                value={key}
                onInput={(event) => setKey(event.currentTarget.value)}
              />
            )}
          </Field>
          <button type="submit" class="button-primary" aria-disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      </Page>
    </div>
  );
}

function signInError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'API_KEY_INVALID') return 'This key is not valid: it is mistyped, unknown or revoked.';
    if (error.status === 429) {
      const wait = error.retryAfter ?? 60;
      return `Too many sign-in attempts. Try again in ${wait} second${wait === 1 ? '' : 's'}.`;
    }
  }
  return errorMessage(error);
}
