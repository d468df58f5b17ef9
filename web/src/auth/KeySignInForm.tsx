import { useState } from 'preact/hooks';
import { ApiError, errorMessage } from '../api/errors.ts';
import { tooManyAttempts } from '../people/fields.ts';
import { Field } from '../shared/Field.tsx';
import { useFormSubmit } from '../shared/use-form-submit.ts';
import { useAuth } from './context.ts';

/** Trades an API key for a session cookie. The key lives only in this field: never stored by the browser. */
export function KeySignInForm() {
  const { api, signedIn } = useAuth();
  const [key, setKey] = useState('');

  const send = async () => {
    const session = await api.signIn(key.trim());
    setKey('');
    signedIn(session);
  };
  const { busy, errors, submit } = useFormSubmit<'key'>(send, {
    check: () => (key.trim() === '' ? { key: 'Enter your API key.' } : null),
    // The form's only field: every error is about the key.
    placeOf: () => 'key',
    controlOf: () => 'api-key',
    messageOf: keyError,
  });

  return (
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
        {busy ? 'Signing in…' : 'Sign in with the key'}
      </button>
    </form>
  );
}

function keyError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'API_KEY_INVALID') return 'This key is not valid: it is mistyped, unknown or revoked.';
    if (error.status === 429) return tooManyAttempts(error);
  }
  return errorMessage(error);
}
