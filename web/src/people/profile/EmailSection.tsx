import { useState } from 'preact/hooks';
import { useApp } from '../../auth/context.ts';
import { ErrorMessage, Field } from '../../shared/Field.tsx';
import { useAnnounce } from '../../shared/Status.tsx';
import { useAction } from '../../shared/use-action.ts';
import { useFormSubmit, type FormErrors } from '../../shared/use-form-submit.ts';
import { changeEmail, resendVerification, type Person } from '../api.ts';
import { personFieldIn, personMessage } from '../fields.ts';

/** Your address: whether it is confirmed (and the link sent again), and changing it (PUT /auth/email, with your password). */
export function EmailSection({ person }: { person: Person }) {
  const { api, options } = useApp();
  const announce = useAnnounce();
  const resend = useAction<'resend'>();

  return (
    <section class="panel" aria-labelledby="email-heading">
      <h2 id="email-heading">Email address</h2>
      <p class="email-now">
        <strong class="break">{person.email}</strong>{' '}
        {person.emailVerified ? (
          <span class="badge badge-verified">Confirmed</span>
        ) : (
          <span class="badge badge-pending">Not confirmed</span>
        )}
      </p>
      {!person.emailVerified &&
        (options.mail ? (
          <div class="button-row">
            <button
              type="button"
              class="button-small"
              aria-disabled={resend.busy !== null}
              onClick={() =>
                resend.run('resend', async () => {
                  await resendVerification(api);
                  announce(`A new link is on its way to ${person.email}`);
                })
              }
            >
              {resend.busy !== null ? 'Sending…' : 'Send the confirmation link again'}
            </button>
          </div>
        ) : (
          <p class="hint">This service sends no email, so addresses are not confirmed by mail.</p>
        ))}
      {resend.error !== null && <ErrorMessage>{resend.error}</ErrorMessage>}
      <EmailForm />
    </section>
  );
}

type Place = 'email' | 'password';

function EmailForm() {
  const { api, session, signedIn, options } = useApp();
  const announce = useAnnounce();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');

  const { busy, errors, formError, submit } = useFormSubmit<Place>(
    async () => {
      const person = await changeEmail(api, email.trim(), password);
      signedIn({ ...session, person });
      setEmail('');
      setPassword('');
      announce(options.mail ? `Address changed: a confirmation link is on its way to ${person.email}` : 'Address changed');
    },
    {
      check: () => {
        const problems: FormErrors<Place> = {};
        if (!email.includes('@')) problems.email = 'Enter the new address, such as ada@example.com.';
        if (password === '') problems.password = 'Enter your password.';
        return Object.keys(problems).length > 0 ? problems : null;
      },
      placeOf: (error) => personFieldIn(error, ['email', 'password'], { currentPassword: 'password' }),
      messageOf: personMessage,
      controlOf: (place) => `new-email-${place}`,
    },
  );

  return (
    <form class="form subform" onSubmit={submit} noValidate aria-labelledby="new-email-heading">
      <h3 id="new-email-heading">Change your address</h3>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      <Field id="new-email-email" label="New email address" error={errors.email}>
        {(control) => (
          <input
            {...control}
            type="email"
            name="email"
            autoComplete="email"
            spellcheck={false}
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field id="new-email-password" label="Your password" hint="To make sure it is you." error={errors.password}>
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
        {busy ? 'Changing…' : 'Change address'}
      </button>
    </form>
  );
}
