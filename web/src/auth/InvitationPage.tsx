import { useLocation } from 'preact-iso';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Session } from '../api/client.ts';
import { acceptInvitation, viewInvitation, type InvitationView } from '../people/api.ts';
import { newPasswordProblem, PASSWORD_HINT, personFieldIn, personMessage } from '../people/fields.ts';
import { ROLE_LABELS } from '../keys/roles.ts';
import { DateText } from '../shared/DateText.tsx';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { Page } from '../shared/Page.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { useAction } from '../shared/use-action.ts';
import { useFormSubmit, type FormErrors } from '../shared/use-form-submit.ts';
import { useLoad } from '../shared/use-load.ts';
import { useAuth } from './context.ts';

/**
 * Where an invitation leads (/app/invitation?token=…): what it is for, then an account made on the spot (name and
 * password), or, for a person who has one, signing in and accepting.
 */
export function InvitationPage() {
  const { query, route } = useLocation();
  const { api, session, signedIn } = useAuth();
  const announce = useAnnounce();
  const token = query['token'] ?? '';
  const invitation = useLoad((signal) => viewInvitation(api, token, signal), token);

  const joined = (joinedSession: Session) => {
    announce(`You joined ${joinedSession.workspace.name}`);
    signedIn(joinedSession);
    route('/app/links');
  };

  let body;
  if (token === '')
    body = <p class="message message-error">This address has no invitation token: open the link you were given again, whole.</p>;
  else if (invitation.error !== null) body = <ErrorMessage onRetry={invitation.retry}>{invitation.error}</ErrorMessage>;
  else if (invitation.data === null) body = <p class="loading">Loading the invitation…</p>;
  else {
    const view = invitation.data;
    const next = `/app/invitation?${new URLSearchParams({ token })}`;
    body = (
      <>
        <InvitationSummary view={view} />
        {session !== null ? (
          session.person?.email === view.email ? (
            <AcceptButton token={token} onJoined={joined} />
          ) : (
            <p class="message message-info">
              This invitation is for <strong>{view.email}</strong>, and you are signed in{' '}
              {session.person === null ? 'with an API key' : <>as {session.person.email}</>}. Sign out, then open this link again.
            </p>
          )
        ) : view.account ? (
          <p class="message message-info">
            <strong>{view.email}</strong> has an account here already.{' '}
            <a href={`/app/sign-in?${new URLSearchParams({ next })}`}>Sign in to accept</a>.
          </p>
        ) : (
          <NewAccountForm token={token} email={view.email} onJoined={joined} />
        )}
      </>
    );
  }

  return (
    <div class="narrow">
      <Page title={invitation.data === null ? 'Invitation' : `Join ${invitation.data.workspace.name}`}>{body}</Page>
    </div>
  );
}

function InvitationSummary({ view }: { view: InvitationView }) {
  return (
    <dl class="invitation-summary">
      <div>
        <dt>Workspace</dt>
        <dd>{view.workspace.name}</dd>
      </div>
      <div>
        <dt>Role</dt>
        <dd>{ROLE_LABELS[view.role]}</dd>
      </div>
      <div class="summary-wide">
        <dt>For</dt>
        <dd class="break">{view.email}</dd>
      </div>
      {view.invitedBy !== null && (
        <div>
          <dt>Invited by</dt>
          <dd>{view.invitedBy.name}</dd>
        </div>
      )}
      <div>
        <dt>Valid until</dt>
        <dd>
          <DateText iso={view.expiresAt} />
        </dd>
      </div>
    </dl>
  );
}

function AcceptButton({ token, onJoined }: { token: string; onJoined: (session: Session) => void }) {
  const { api } = useAuth();
  const { busy, error, run } = useAction<'accept'>();
  return (
    <>
      {error !== null && <ErrorMessage>{error}</ErrorMessage>}
      <button
        type="button"
        class="button-primary"
        aria-disabled={busy !== null}
        onClick={() => run('accept', async () => onJoined(await acceptInvitation(api, token)))}
      >
        {busy !== null ? 'Joining…' : 'Accept and join'}
      </button>
    </>
  );
}

type Place = 'name' | 'password';

function NewAccountForm({ token, email, onJoined }: { token: string; email: string; onJoined: (session: Session) => void }) {
  const { api } = useAuth();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const first = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => first.current?.focus(), []);

  const { busy, errors, formError, submit } = useFormSubmit<Place>(
    async () => onJoined(await acceptInvitation(api, token, { name: name.trim(), password })),
    {
      check: () => {
        const problems: FormErrors<Place> = {};
        if (name.trim() === '') problems.name = 'Enter your name.';
        const weak = newPasswordProblem(password);
        if (weak !== null) problems.password = weak;
        return Object.keys(problems).length > 0 ? problems : null;
      },
      placeOf: (error) => personFieldIn(error, ['name', 'password']),
      messageOf: personMessage,
      controlOf: (place) => `join-${place}`,
    },
  );

  return (
    <form class="form panel join-form" onSubmit={submit} noValidate aria-labelledby="join-heading">
      <h2 id="join-heading">Create your account</h2>
      <p class="muted">
        You will sign in with <strong class="break">{email}</strong> and this password.
      </p>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      <Field id="join-name" label="Your name" hint="As your team will see it." error={errors.name}>
        {(control) => (
          <input
            {...control}
            ref={first}
            type="text"
            name="name"
            autoComplete="name"
            maxLength={100}
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field id="join-password" label="Password" hint={PASSWORD_HINT} error={errors.password}>
        {(control) => (
          <input
            {...control}
            type="password"
            name="password"
            autoComplete="new-password"
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        )}
      </Field>
      <button type="submit" class="button-primary" aria-disabled={busy}>
        {busy ? 'Joining…' : 'Create account and join'}
      </button>
    </form>
  );
}
