import { useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import type { Domain } from '../domains/api.ts';
import { updateWorkspace, type WorkspaceSettings } from '../people/api.ts';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { useFormSubmit } from '../shared/use-form-submit.ts';
import { settingsFieldIn, settingsMessage } from './fields.ts';

type Place = 'defaultDomain';

interface DefaultDomainFormProps {
  settings: WorkspaceSettings;
  /** The workspace's domains (GET /domains), the deployment's first; null while they load. */
  domains: readonly Domain[] | null;
  onSaved: (saved: WorkspaceSettings) => void;
}

/** The domain new links go on when their create names none (one, in bulk, an import). */
export function DefaultDomainForm({ settings, domains, onSaved }: DefaultDomainFormProps) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [host, setHost] = useState(settings.defaultDomain ?? '');
  const { busy, errors, formError, submit, clear } = useFormSubmit<Place>(
    async () => {
      const saved = await updateWorkspace(api, { defaultDomain: host === '' ? null : host });
      onSaved(saved);
      announce('Default domain saved');
    },
    {
      placeOf: (error) => settingsFieldIn(error, ['defaultDomain']),
      messageOf: settingsMessage,
      controlOf: () => 'settings-defaultDomain',
    },
  );
  const own = (domains ?? []).filter((domain) => !domain.isDefault);
  // The saved one is listed even before the domains are read, so that the select shows it.
  const hosts = own.some((domain) => domain.host === settings.defaultDomain) || settings.defaultDomain === null ? own : [];

  return (
    <form class="form panel" onSubmit={submit} noValidate aria-labelledby="settings-links-heading">
      <h2 id="settings-links-heading">Links</h2>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      <Field
        id="settings-defaultDomain"
        label="Default domain for new links"
        hint={
          own.length === 0 && domains !== null ? (
            <>
              New links go on <strong>{settings.defaults.domain}</strong>. Add a domain of your own on the{' '}
              <a href="/app/domains">Domains</a> page to choose it here.
            </>
          ) : (
            'Where a new link goes when nobody picks a domain for it: one link, many at once, or an import.'
          )
        }
        error={errors.defaultDomain ?? null}
      >
        {(control) => (
          <select
            {...control}
            name="defaultDomain"
            value={host}
            onChange={(event) => {
              setHost(event.currentTarget.value);
              clear('defaultDomain');
            }}
          >
            <option value="">{settings.defaults.domain} (the service’s)</option>
            {hosts.length === 0 && settings.defaultDomain !== null && (
              <option value={settings.defaultDomain}>{settings.defaultDomain}</option>
            )}
            {hosts.map((domain) => (
              <option key={domain.host} value={domain.host}>
                {domain.verification?.status === 'pending' ? `${domain.host} (not verified yet)` : domain.host}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button type="submit" class="button-primary" aria-disabled={busy}>
        {busy ? 'Saving…' : 'Save default domain'}
      </button>
    </form>
  );
}
