import { useLocation } from 'preact-iso';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { confirmPasswordReset } from '../people/api.ts';
import { newPasswordProblem, PASSWORD_HINT, personFieldIn, personMessage } from '../people/fields.ts';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { Page } from '../shared/Page.tsx';
import { useFormSubmit, type FormErrors } from '../shared/use-form-submit.ts';
import { useAuth } from './context.ts';

type Place = 'password' | 'confirm';

/**
 * Where a reset link leads (/app/reset-password?token=…): a new password, typed twice. The reset closes the person's
 * sessions, this browser's too if it had one, so the sign-in page follows, saying so.
 */
export function ResetPasswordPage() {
  const { query, route } = useLocation();
  const { options, signedOut } = useAuth();
  const token = query['token'] ?? '';
  const done = () => {
    signedOut('Your password is changed, and your sessions are closed. Sign in with the new password.');
    route('/app/sign-in');
  };
  return (
    <div class="narrow">
      <Page title="Choose a new password">
        {token === '' ? (
          <p class="message message-error">This address has no reset token: open the link you were given again, whole.</p>
        ) : (
          <ResetForm token={token} mail={options.mail} onDone={done} />
        )}
      </Page>
    </div>
  );
}

function ResetForm({ token, mail, onDone }: { token: string; mail: boolean; onDone: () => void }) {
  const { api } = useAuth();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const first = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => first.current?.focus(), []);

  const { busy, errors, formError, submit } = useFormSubmit<Place>(
    async () => {
      await confirmPasswordReset(api, token, password);
      onDone();
    },
    {
      check: () => {
        const problems: FormErrors<Place> = {};
        const weak = newPasswordProblem(password);
        if (weak !== null) problems.password = weak;
        else if (confirm !== password) problems.confirm = 'The two passwords differ: type the same one twice.';
        return Object.keys(problems).length > 0 ? problems : null;
      },
      placeOf: (error) => personFieldIn(error, ['password']),
      messageOf: personMessage,
      controlOf: (place) => `reset-${place}`,
    },
  );

  return (
    <form class="form" onSubmit={submit} noValidate>
      {formError !== null && (
        <ErrorMessage>
          {formError} {mail ? <a href="/app/forgot-password">Ask for a new link</a> : 'Ask an admin of your workspace for a new one.'}
        </ErrorMessage>
      )}
      <Field id="reset-password" label="New password" hint={PASSWORD_HINT} error={errors.password}>
        {(control) => (
          <input
            {...control}
            ref={first}
            type="password"
            name="password"
            autoComplete="new-password"
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field id="reset-confirm" label="New password again" error={errors.confirm}>
        {(control) => (
          <input
            {...control}
            type="password"
            name="confirm"
            autoComplete="new-password"
            value={confirm}
            onInput={(event) => setConfirm(event.currentTarget.value)}
          />
        )}
      </Field>
      <button type="submit" class="button-primary" aria-disabled={busy}>
        {busy ? 'Saving…' : 'Save the new password'}
      </button>
    </form>
  );
}
