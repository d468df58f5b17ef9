import { useLocation } from 'preact-iso';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { getSetup, setUp, type SetupState } from '../people/api.ts';
import { newPasswordProblem, PASSWORD_HINT, personFieldIn, personMessage } from '../people/fields.ts';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { listOf } from '../shared/lists.ts';
import { Page } from '../shared/Page.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { useFormSubmit, type FormErrors } from '../shared/use-form-submit.ts';
import { useLoad } from '../shared/use-load.ts';
import { useAuth } from './context.ts';

type Place = 'name' | 'email' | 'password' | 'token';
const FIELDS = listOf<Place>()(['name', 'email', 'password', 'token']);

/** The first run: while nobody has an account, whoever opens the dashboard creates the first admin (POST /auth/setup). */
export function SetupPage() {
  const { api } = useAuth();
  const setup = useLoad((signal) => getSetup(api, signal), 'setup');
  return (
    <div class="narrow">
      <Page title="Set up Shortener">
        <p>
          Nobody has an account here yet. Create the first one: you become the <strong>admin</strong> of the workspace, and can then invite
          your team from the Members page.
        </p>
        {setup.error !== null ? (
          <ErrorMessage onRetry={setup.retry}>The set-up could not be loaded: {setup.error}</ErrorMessage>
        ) : setup.data === null ? (
          <p class="loading">Loading…</p>
        ) : setup.data.needed ? (
          <>
            <SetupForm state={setup.data} />
            <p>
              Upgrading, with an API key from before? <a href="/app/sign-in">Sign in with it</a> instead.
            </p>
          </>
        ) : (
          <p class="message message-info">
            The first admin has been set up already. <a href="/app/sign-in">Sign in</a>.
          </p>
        )}
      </Page>
    </div>
  );
}

function SetupForm({ state }: { state: SetupState }) {
  const { api, signedIn } = useAuth();
  const { query } = useLocation();
  const announce = useAnnounce();
  // The link the server logs at start carries the token (/app/setup?token=…).
  const [values, setValues] = useState<Record<Place, string>>({ name: '', email: '', password: '', token: query['token'] ?? '' });
  const first = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => first.current?.focus(), []);

  const send = async () => {
    const { name, email, password, token } = values;
    const session = await setUp(api, {
      name: name.trim(),
      email: email.trim(),
      password,
      ...(state.tokenRequired ? { token: token.trim() } : {}),
    });
    announce(`Welcome, ${session.person?.name ?? name.trim()}: you are the admin of ${session.workspace.name}`);
    signedIn(session);
  };
  const { busy, errors, formError, submit, clear } = useFormSubmit<Place>(send, {
    check: () => {
      const problems: FormErrors<Place> = {};
      if (values.name.trim() === '') problems.name = 'Enter your name.';
      if (!values.email.includes('@')) problems.email = 'Enter your email address, such as ada@example.com.';
      const password = newPasswordProblem(values.password);
      if (password !== null) problems.password = password;
      if (state.tokenRequired && values.token.trim() === '') problems.token = 'Enter the set-up token from the server’s log.';
      return Object.keys(problems).length > 0 ? problems : null;
    },
    placeOf: (error) => personFieldIn(error, FIELDS),
    messageOf: personMessage,
    controlOf: (place) => `setup-${place}`,
  });
  const input = (place: Place) => (event: { currentTarget: HTMLInputElement }) => {
    const value = event.currentTarget.value;
    setValues((shown) => ({ ...shown, [place]: value }));
    clear(place);
  };

  return (
    <form class="form panel" onSubmit={submit} noValidate>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      <Field id="setup-name" label="Your name" hint="As your team will see it." error={errors.name}>
        {(control) => (
          <input
            {...control}
            ref={first}
            type="text"
            name="name"
            autoComplete="name"
            maxLength={100}
            value={values.name}
            onInput={input('name')}
          />
        )}
      </Field>
      <Field id="setup-email" label="Email address" hint="You sign in with it." error={errors.email}>
        {(control) => (
          <input
            {...control}
            type="email"
            name="email"
            autoComplete="email"
            spellcheck={false}
            value={values.email}
            onInput={input('email')}
          />
        )}
      </Field>
      <Field id="setup-password" label="Password" hint={PASSWORD_HINT} error={errors.password}>
        {(control) => (
          <input
            {...control}
            type="password"
            name="password"
            autoComplete="new-password"
            value={values.password}
            onInput={input('password')}
          />
        )}
      </Field>
      {state.tokenRequired && (
        <Field
          id="setup-token"
          label="Set-up token"
          hint="You are not on the server itself, so the service asks for the one-time token of the set-up link it wrote to its log when it started."
          error={errors.token}
        >
          {(control) => (
            <input
              {...control}
              type="text"
              name="token"
              autoComplete="off"
              spellcheck={false}
              value={values.token}
              onInput={input('token')}
            />
          )}
        </Field>
      )}
      <button type="submit" class="button-primary" aria-disabled={busy}>
        {busy ? 'Creating…' : 'Create the admin account'}
      </button>
      <p class="hint">
        {state.mail
          ? 'This service sends email: invitations and password resets go to people’s inboxes.'
          : 'This service sends no email (SMTP_URL is not set): invitations and password resets are links you pass on yourself.'}
      </p>
    </form>
  );
}
