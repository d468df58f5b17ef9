import { useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { updateWorkspace, type WorkspaceChanges, type WorkspaceSettings } from '../people/api.ts';
import { personFieldIn, personMessage } from '../people/fields.ts';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { useFormSubmit, type FormErrors } from '../shared/use-form-submit.ts';

/** The fields of this form; the requirements, brand, domain and session length are saved by forms of their own. */
type Place = Extract<keyof Required<WorkspaceChanges>, 'name' | 'joinDomain' | 'auditRetentionDays'>;
const FIELDS: readonly Place[] = ['name', 'joinDomain', 'auditRetentionDays'];

/** The workspace's name, the email domain whose people may join on their own, how long the audit log keeps entries. */
export function WorkspaceForm({ settings, onSaved }: { settings: WorkspaceSettings; onSaved: (saved: WorkspaceSettings) => void }) {
  const { api, signedIn } = useApp();
  const announce = useAnnounce();
  const [values, setValues] = useState({
    name: settings.name,
    joinDomain: settings.joinDomain ?? '',
    auditRetentionDays: String(settings.auditRetentionDays),
  });

  const { busy, errors, formError, submit, clear } = useFormSubmit<Place>(
    async () => {
      const domain = values.joinDomain.trim().replace(/^@/, '').toLowerCase();
      const saved = await updateWorkspace(api, {
        name: values.name.trim(),
        joinDomain: domain === '' ? null : domain,
        auditRetentionDays: Number(values.auditRetentionDays),
      });
      onSaved(saved);
      announce('Workspace settings saved');
      // The header shows the workspace's name.
      signedIn(await api.getSession());
    },
    {
      check: () => {
        const problems: FormErrors<Place> = {};
        if (values.name.trim() === '') problems.name = 'Give the workspace a name.';
        const days = Number(values.auditRetentionDays);
        if (!Number.isInteger(days) || days < 1 || days > 3650)
          problems.auditRetentionDays = 'Enter a whole number of days from 1 to 3650.';
        return Object.keys(problems).length > 0 ? problems : null;
      },
      placeOf: (error) => personFieldIn(error, FIELDS),
      messageOf: personMessage,
      controlOf: (place) => `workspace-${place}`,
    },
  );
  const onInput = (place: Place) => (event: { currentTarget: HTMLInputElement }) => {
    const value = event.currentTarget.value;
    setValues((shown) => ({ ...shown, [place]: value }));
    clear(place);
  };

  return (
    <form class="form panel" onSubmit={submit} noValidate>
      {/* Not the form's name: the header's workspace switcher is the page's "Workspace". */}
      <h2>Workspace</h2>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      <Field id="workspace-name" label="Name" error={errors.name}>
        {(control) => (
          <input {...control} type="text" name="name" maxLength={100} autoComplete="off" value={values.name} onInput={onInput('name')} />
        )}
      </Field>
      <Field
        id="workspace-joinDomain"
        label="Join by email domain (optional)"
        hint="People whose confirmed address is at this domain (e.g. example.com) may join as members without an invitation. Empty: by invitation only."
        error={errors.joinDomain}
      >
        {(control) => (
          <input
            {...control}
            type="text"
            name="joinDomain"
            inputMode="url"
            autoComplete="off"
            spellcheck={false}
            value={values.joinDomain}
            onInput={onInput('joinDomain')}
          />
        )}
      </Field>
      <Field
        id="workspace-auditRetentionDays"
        label="Keep the audit log for (days)"
        hint="Entries older than this are deleted. 1 to 3650."
        error={errors.auditRetentionDays}
      >
        {(control) => (
          <input
            {...control}
            class="input-short"
            type="number"
            name="auditRetentionDays"
            min={1}
            max={3650}
            step={1}
            inputMode="numeric"
            value={values.auditRetentionDays}
            onInput={onInput('auditRetentionDays')}
          />
        )}
      </Field>
      <button type="submit" class="button-primary" aria-disabled={busy}>
        {busy ? 'Saving…' : 'Save settings'}
      </button>
    </form>
  );
}
