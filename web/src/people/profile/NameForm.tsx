import { useState } from 'preact/hooks';
import { useApp } from '../../auth/context.ts';
import { ErrorMessage, Field } from '../../shared/Field.tsx';
import { useAnnounce } from '../../shared/Status.tsx';
import { useFormSubmit } from '../../shared/use-form-submit.ts';
import { updateName, type Person } from '../api.ts';
import { personFieldIn, personMessage } from '../fields.ts';

/** Your name as your team sees it (PATCH /auth/profile). */
export function NameForm({ person }: { person: Person }) {
  const { api, session, signedIn } = useApp();
  const announce = useAnnounce();
  const [name, setName] = useState(person.name);

  const { busy, errors, formError, submit } = useFormSubmit<'name'>(
    async () => {
      const updated = await updateName(api, name.trim());
      signedIn({ ...session, person: updated });
      announce('Name saved');
    },
    {
      check: () => (name.trim() === '' ? { name: 'Enter your name.' } : null),
      placeOf: (error) => personFieldIn(error, ['name']),
      messageOf: personMessage,
      controlOf: () => 'profile-name',
    },
  );

  return (
    <section class="panel" aria-labelledby="name-heading">
      <h2 id="name-heading">Name</h2>
      <form class="form" onSubmit={submit} noValidate>
        {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
        <Field
          id="profile-name"
          label="Your name"
          hint="As your team sees it in members, invitations and the audit log."
          error={errors.name}
        >
          {(control) => (
            <input
              {...control}
              type="text"
              name="name"
              autoComplete="name"
              maxLength={100}
              value={name}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" class="button-primary" aria-disabled={busy}>
          {busy ? 'Saving…' : 'Save name'}
        </button>
      </form>
    </section>
  );
}
