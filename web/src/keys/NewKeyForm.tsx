import { useRef, useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { errorMessage } from '../api/errors.ts';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { createKey, type CreatedKey } from './api.ts';
import { ROLE_CHOICES, ROLE_LABELS } from './roles.ts';
import type { Role } from '../../../src/auth/roles.ts';

/** Creates a key (POST /keys); the answer, with its secret, goes to `onCreated`. */
export function NewKeyForm({ onCreated }: { onCreated: (key: CreatedKey) => void }) {
  const { api } = useApp();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [nameError, setNameError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const nameInput = useRef<HTMLInputElement>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setFormError(null);
    const trimmed = name.trim();
    if (trimmed === '' || trimmed.length > 100) {
      setNameError('Give the key a name of 1 to 100 characters.');
      nameInput.current?.focus();
      return;
    }
    setNameError(null);
    setBusy(true);
    try {
      onCreated(await createKey(api, { name: trimmed, role }));
      setName('');
    } catch (caught) {
      setFormError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-labelledby="new-key-heading">
      <h2 id="new-key-heading">New key</h2>
      <form class="form" onSubmit={(event) => void submit(event)} noValidate>
        {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
        <Field id="key-name" label="Name" hint="Who or what uses it, e.g. “newsletter team”." error={nameError}>
          {(control) => (
            <input
              {...control}
              ref={nameInput}
              type="text"
              name="name"
              maxLength={100}
              autoComplete="off"
              value={name}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          id="key-role"
          label="Role"
          hint="Viewers read links, stats and exports; members also create links and change their own; admins do everything, keys included."
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
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </form>
    </section>
  );
}
