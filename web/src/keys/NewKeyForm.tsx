import { useState } from 'preact/hooks';
import type { NAME_MAX_LENGTH } from '../../../src/core/names.ts';
import type { Role } from '../../../src/auth/roles.ts';
import { fieldIn } from '../api/errors.ts';
import { useApp } from '../auth/context.ts';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { listOf } from '../shared/lists.ts';
import { useFormSubmit } from '../shared/use-form-submit.ts';
import { createKey, type CreatedKey, type NewKey } from './api.ts';
import { ROLE_CHOICES, ROLE_LABELS } from './roles.ts';

/** The fields of a new key, as the API names them. */
const KEY_FIELDS = listOf<keyof NewKey>()(['name', 'role']);
const NAME_MAX = 100 satisfies typeof NAME_MAX_LENGTH;

/** Creates a key (POST /keys); the answer, with its secret, goes to `onCreated`. */
export function NewKeyForm({ onCreated }: { onCreated: (key: CreatedKey) => void }) {
  const { api, session } = useApp();
  const [name, setName] = useState('');
  // A person's key carries at most their role: only those roles are offered.
  const mine = session.person !== null;
  const choices = mine ? ROLE_CHOICES.slice(0, ROLE_CHOICES.indexOf(session.key.role) + 1) : ROLE_CHOICES;
  const [role, setRole] = useState<Role>(choices.includes('member') ? 'member' : 'viewer');

  const send = async () => {
    onCreated(await createKey(api, { name: name.trim(), role }));
    setName('');
  };
  const { busy, errors, formError, submit } = useFormSubmit<keyof NewKey>(send, {
    check: () => {
      const trimmed = name.trim();
      return trimmed === '' || trimmed.length > NAME_MAX ? { name: `Give the key a name of 1 to ${NAME_MAX} characters.` } : null;
    },
    placeOf: (error) => fieldIn(error, KEY_FIELDS),
    controlOf: (field) => `key-${field}`,
  });

  return (
    <section class="panel" aria-labelledby="new-key-heading">
      <h2 id="new-key-heading">New key</h2>
      <form class="form" onSubmit={submit} noValidate>
        {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
        <Field id="key-name" label="Name" hint="Who or what uses it, e.g. “newsletter team”." error={errors.name}>
          {(control) => (
            <input
              {...control}
              type="text"
              name="name"
              maxLength={NAME_MAX}
              autoComplete="off"
              value={name}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          id="key-role"
          label="Role"
          hint={
            mine
              ? `Your own key: it carries at most your role (${ROLE_LABELS[session.key.role].toLowerCase()}) and stops working when you leave the workspace.`
              : 'Viewers read links, stats and exports; members also create links and change their own; admins do everything, keys included.'
          }
          error={errors.role}
        >
          {(control) => (
            <select {...control} name="role" value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
              {choices.map((r) => (
                <option key={r} value={r}>
                  {ROLE_LABELS[r]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="submit" class="button-primary" aria-disabled={busy}>
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </form>
    </section>
  );
}
