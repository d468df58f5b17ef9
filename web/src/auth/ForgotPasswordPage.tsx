import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/errors.ts';
import { requestPasswordReset } from '../people/api.ts';
import { personMessage } from '../people/fields.ts';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { Page } from '../shared/Page.tsx';
import { useFormSubmit } from '../shared/use-form-submit.ts';
import { useAuth } from './context.ts';

/**
 * Asks for a reset link by email (POST /auth/password-reset). The answer is the same whether or not the address has
 * an account, so the page says the same too.
 */
export function ForgotPasswordPage() {
  const { options } = useAuth();
  const [sentTo, setSentTo] = useState<string | null>(null);
  return (
    <div class="narrow">
      <Page title="Forgot your password?">
        {!options.mail ? (
          <NoMail />
        ) : sentTo !== null ? (
          <div class="message message-info" role="status">
            <p>
              If <strong>{sentTo}</strong> has an account here, a link to choose a new password is on its way to it. Check your inbox (and
              your spam folder); the link works once, for a limited time.
            </p>
          </div>
        ) : (
          <ResetRequestForm onSent={setSentTo} />
        )}
        <p>
          <a href="/app/sign-in">Back to signing in</a>
        </p>
      </Page>
    </div>
  );
}

function NoMail() {
  return (
    <p class="message message-info">
      This service sends no email, so it cannot mail you a link. Ask an admin of your workspace: on the Members page, they can make a reset
      link for you and pass it on.
    </p>
  );
}

function ResetRequestForm({ onSent }: { onSent: (email: string) => void }) {
  const { api } = useAuth();
  const [email, setEmail] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => input.current?.focus(), []);

  const send = async () => {
    await requestPasswordReset(api, email.trim());
    onSent(email.trim());
  };
  const { busy, errors, formError, submit } = useFormSubmit<'email'>(send, {
    check: () => (email.includes('@') ? null : { email: 'Enter the email address you sign in with.' }),
    placeOf: (error) => (error instanceof ApiError && error.code === 'EMAIL_INVALID' ? 'email' : null),
    controlOf: () => 'forgot-email',
    messageOf: personMessage,
  });

  return (
    <form class="form" onSubmit={submit} noValidate>
      <p>Enter the address you sign in with: we send it a link to choose a new password.</p>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      <Field id="forgot-email" label="Email address" error={errors.email} live>
        {(control) => (
          <input
            {...control}
            ref={input}
            type="email"
            name="email"
            autoComplete="username"
            spellcheck={false}
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
        )}
      </Field>
      <button type="submit" class="button-primary" aria-disabled={busy}>
        {busy ? 'Sending…' : 'Send me a link'}
      </button>
    </form>
  );
}
