import { useState } from 'preact/hooks';
import type { Role } from '../../../../src/auth/roles.ts';
import { useApp } from '../../auth/context.ts';
import { ROLE_CHOICES, ROLE_LABELS } from '../../keys/roles.ts';
import { ErrorMessage, Field } from '../../shared/Field.tsx';
import { useAnnounce } from '../../shared/Status.tsx';
import { useFormSubmit } from '../../shared/use-form-submit.ts';
import { invite, type CreatedInvitation } from '../api.ts';
import { personFieldIn, personMessage } from '../fields.ts';

type Place = 'email' | 'role';

/** Invites someone by email (POST /invitations): mailed, or a link to pass on when the service sends no mail. */
export function InviteForm({ onInvited }: { onInvited: (invitation: CreatedInvitation) => void }) {
  const { api, session } = useApp();
  const announce = useAnnounce();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');

  const send = async () => {
    const created = await invite(api, email.trim(), role);
    setEmail('');
    if (created.url === undefined) announce(`Invitation emailed to ${created.email}`);
    onInvited(created);
  };
  const { busy, errors, formError, submit, clear } = useFormSubmit<Place>(send, {
    check: () => (email.includes('@') ? null : { email: 'Enter the email address of the person to invite.' }),
    placeOf: (error) => personFieldIn(error, ['email', 'role']),
    messageOf: personMessage,
    controlOf: (place) => `invite-${place}`,
  });

  return (
    <section class="panel" aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite someone</h2>
      <form class="form" onSubmit={submit} noValidate>
        {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
        <Field id="invite-email" label="Email address" hint={`They join ${session.workspace.name} with it.`} error={errors.email}>
          {(control) => (
            <input
              {...control}
              type="email"
              name="email"
              autoComplete="off"
              spellcheck={false}
              value={email}
              onInput={(event) => {
                setEmail(event.currentTarget.value);
                clear('email');
              }}
            />
          )}
        </Field>
        <Field
          id="invite-role"
          label="Role"
          hint="Viewers read links and stats; members also create links and change their own; admins do everything, people included."
          error={errors.role}
        >
          {(control) => (
            <select {...control} name="role" value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
              {ROLE_CHOICES.map((r) => (
                <option key={r} value={r}>
                  {ROLE_LABELS[r]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="submit" class="button-primary" aria-disabled={busy}>
          {busy ? 'Inviting…' : 'Invite'}
        </button>
      </form>
    </section>
  );
}
