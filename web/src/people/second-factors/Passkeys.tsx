import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { useState } from 'preact/hooks';
import { useApp } from '../../auth/context.ts';
import { ConfirmDialog } from '../../shared/ConfirmDialog.tsx';
import { DateText } from '../../shared/DateText.tsx';
import { ErrorMessage, Field } from '../../shared/Field.tsx';
import { useAnnounce } from '../../shared/Status.tsx';
import { useAction } from '../../shared/use-action.ts';
import { useFormSubmit } from '../../shared/use-form-submit.ts';
import { personFieldIn, personMessage } from '../fields.ts';
import { addPasskey, passkeyProblem, removePasskey, type PasskeyView, type SecondFactors } from './api.ts';

interface PasskeysProps {
  factors: SecondFactors;
  /** After a change; with the recovery codes made by a first factor. */
  onChanged: (codes?: string[] | null) => Promise<void>;
}

/** The person's passkeys: listed, added from this device (named), removed. Says so where passkeys cannot work. */
export function Passkeys({ factors, onChanged }: PasskeysProps) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [name, setName] = useState('');
  const [removing, setRemoving] = useState<PasskeyView | null>(null);
  const remove = useAction<'remove'>();

  const { busy, errors, formError, submit, clear } = useFormSubmit<'name'>(
    async () => {
      const added = await addPasskey(api, name.trim());
      setName('');
      announce(`Passkey ${added.passkey.name} added`);
      await onChanged(added.recoveryCodes);
    },
    {
      check: () => (name.trim() === '' ? { name: 'Name the passkey: where it lives, such as “Work laptop”.' } : null),
      placeOf: (error) => personFieldIn(error, ['name']),
      messageOf: (error) => passkeyProblem(error) ?? personMessage(error),
      controlOf: () => 'passkey-name',
    },
  );

  const confirmRemove = () => {
    const passkey = removing;
    if (passkey === null) return;
    remove.run('remove', async () => {
      await removePasskey(api, passkey.id);
      setRemoving(null);
      announce(`Passkey ${passkey.name} removed`);
      await onChanged();
    });
  };

  return (
    <section class="panel" aria-labelledby="passkeys-heading">
      <h3 id="passkeys-heading">Passkeys</h3>
      <p class="hint">Sign in with your fingerprint, face or screen lock instead of a password, or confirm a password sign-in with it.</p>
      {factors.passkeys.length === 0 ? (
        <p class="muted">No passkeys yet.</p>
      ) : (
        <ul class="factor-list">
          {factors.passkeys.map((passkey) => (
            <li key={passkey.id}>
              <span class="factor-name">{passkey.name}</span>
              <span class="factor-dates muted">
                Added <DateText iso={passkey.createdAt} />
                {passkey.lastUsedAt === null ? (
                  ', never used'
                ) : (
                  <>
                    , last used <DateText iso={passkey.lastUsedAt} />
                  </>
                )}
              </span>
              <button type="button" class="button-small button-danger" onClick={() => setRemoving(passkey)}>
                Remove<span class="visually-hidden"> passkey {passkey.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {!factors.passkeysAvailable ? (
        <p class="message message-info">
          Passkeys are not available on this service: browsers offer them only on https addresses (and on localhost). Ask your
          administrator.
        </p>
      ) : !browserSupportsWebAuthn() ? (
        <p class="message message-info">This browser cannot make passkeys.</p>
      ) : (
        <form class="form subform" onSubmit={submit} noValidate>
          {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
          <Field
            id="passkey-name"
            label="Name of a new passkey"
            hint="Where it lives, such as “Work laptop” or “Phone”."
            error={errors.name}
          >
            {(control) => (
              <input
                {...control}
                type="text"
                name="passkeyName"
                maxLength={100}
                autoComplete="off"
                value={name}
                onInput={(event) => {
                  setName(event.currentTarget.value);
                  clear('name');
                }}
              />
            )}
          </Field>
          <button type="submit" class="button-primary" aria-disabled={busy}>
            {busy ? 'Waiting for the passkey…' : 'Add a passkey'}
          </button>
        </form>
      )}
      <ConfirmDialog
        open={removing !== null}
        title="Remove this passkey?"
        confirmLabel="Remove passkey"
        busy={remove.busy !== null}
        error={remove.error}
        onConfirm={confirmRemove}
        onCancel={() => {
          setRemoving(null);
          remove.setError(null);
        }}
      >
        <p>
          {removing?.name} will no longer sign you in here. The passkey stays on its device: remove it there too if you no longer want it.
        </p>
      </ConfirmDialog>
    </section>
  );
}
