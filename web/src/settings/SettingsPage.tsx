import { useState } from 'preact/hooks';
import { permissions, useApp } from '../auth/context.ts';
import { useDomains } from '../domains/use-domains.ts';
import { getWorkspace, type WorkspaceSettings } from '../people/api.ts';
import { RequireSecondFactor } from '../people/second-factors/RequireSecondFactor.tsx';
import { RequireSsoSetting } from '../people/RequireSsoSetting.tsx';
import { ErrorMessage } from '../shared/Field.tsx';
import { Page } from '../shared/Page.tsx';
import { useLoad } from '../shared/use-load.ts';
import { BrandForm } from './BrandForm.tsx';
import { DefaultDomainForm } from './DefaultDomainForm.tsx';
import { ReadOnlySettings } from './ReadOnlySettings.tsx';
import { SessionForm } from './SessionForm.tsx';
import { WorkspaceForm } from './WorkspaceForm.tsx';
import '../styles/settings.css';

/** The workspace's settings on one page (docs/settings.md): every member reads them, admins change them. */
export function SettingsPage() {
  const { api, session } = useApp();
  const loaded = useLoad((signal) => getWorkspace(api, signal), 'workspace');
  // What the last save answered: newer than the first read.
  const [saved, setSaved] = useState<WorkspaceSettings | null>(null);
  const settings = saved ?? loaded.data;
  return (
    <div class="settings">
      <Page title="Workspace settings">
        {loaded.error !== null ? (
          <ErrorMessage onRetry={loaded.retry}>The settings could not be loaded: {loaded.error}</ErrorMessage>
        ) : settings === null ? (
          <p class="loading">Loading settings…</p>
        ) : permissions(session).canManageWorkspace ? (
          <AdminSettings settings={settings} onSaved={setSaved} />
        ) : (
          <ReadOnlySettings settings={settings} />
        )}
        <ApiSection />
      </Page>
    </div>
  );
}

function AdminSettings({ settings, onSaved }: { settings: WorkspaceSettings; onSaved: (saved: WorkspaceSettings) => void }) {
  const { domains } = useDomains();
  return (
    <>
      <WorkspaceForm settings={settings} onSaved={onSaved} />
      <RequireSsoSetting settings={settings} />
      <RequireSecondFactor settings={settings} />
      <BrandForm settings={settings} onSaved={onSaved} />
      <DefaultDomainForm settings={settings} domains={domains} onSaved={onSaved} />
      <SessionForm settings={settings} onSaved={onSaved} />
    </>
  );
}

function ApiSection() {
  return (
    <section class="panel" aria-labelledby="settings-api-heading">
      <h2 id="settings-api-heading">API</h2>
      <p>
        Programs create and manage links with an API key. The <a href="/docs">API reference</a> lists every call; keys are made on the{' '}
        <a href="/app/keys">API keys</a> page.
      </p>
    </section>
  );
}
