import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { signInWithPassword, type SecondFactorStep } from '../people/second-factors/api.ts';
import { personMessage } from '../people/fields.ts';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { useFormSubmit, type FormErrors } from '../shared/use-form-submit.ts';
import { useAuth } from './context.ts';

type Place = 'email' | 'password';

/**
 * Email and password (POST /auth/sign-in). A wrong pair is one message for both: the API never says which. A person
 * with a second factor gets no session yet: `onSecondStep` takes it to the second step (SignInPage). `notice`: why the
 * form is back (the second step took too long).
 */
export function PasswordSignInForm({ notice, onSecondStep }: { notice: string | null; onSecondStep: (step: SecondFactorStep) => void }) {
  const { api, signedIn } = useAuth();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const first = useRef<HTMLInputElement>(null);

  useLayoutEffect(() => first.current?.focus(), []);

  const send = async () => {
    const answer = await signInWithPassword(api, email.trim(), password);
    setPassword('');
    if ('ticket' in answer) onSecondStep(answer);
    else signedIn(answer);
  };
  const { busy, errors, formError, submit } = useFormSubmit<Place>(send, {
    check: () => {
      const problems: FormErrors<Place> = {};
      if (email.trim() === '') problems.email = 'Enter your email address.';
      if (password === '') problems.password = 'Enter your password.';
      return Object.keys(problems).length > 0 ? problems : null;
    },
    placeOf: () => null,
    messageOf: personMessage,
  });

  return (
    <form class="form" onSubmit={submit} noValidate>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      {notice !== null && formError === null && <ErrorMessage>{notice}</ErrorMessage>}
      <Field id="sign-in-email" label="Email address" error={errors.email}>
        {(control) => (
          <input
            {...control}
            ref={first}
            type="email"
            name="email"
            autoComplete="username"
            spellcheck={false}
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field id="sign-in-password" label="Password" error={errors.password}>
        {(control) => (
          <input
            {...control}
            type="password"
            name="password"
            autoComplete="current-password"
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        )}
      </Field>
      <button type="submit" class="button-primary" aria-disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
