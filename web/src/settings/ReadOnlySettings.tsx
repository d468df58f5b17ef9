import type { WorkspaceSettings } from '../people/api.ts';
import { BrandPreview } from './BrandPreview.tsx';
import { hoursText } from './hours.ts';

/** The settings as a member who is not an admin sees them: what they are, not how to change them. */
export function ReadOnlySettings({ settings }: { settings: WorkspaceSettings }) {
  const { brand, defaults } = settings;
  return (
    <>
      <p class="message message-info">Only admins of this workspace can change its settings; ask one of them (see Members).</p>
      <section class="panel">
        {/* Not the section's name: the header's workspace switcher is the page's "Workspace". */}
        <h2>Workspace</h2>
        <dl class="settings-list">
          <dt>Name</dt>
          <dd>{settings.name}</dd>
          <dt>Join by email domain</dt>
          <dd>{settings.joinDomain ?? 'Nobody: by invitation only'}</dd>
          <dt>Single sign-on required</dt>
          <dd>{settings.requireSso ? 'Yes' : 'No'}</dd>
          <dt>Second factor required</dt>
          <dd>{settings.requireSecondFactor ? 'Yes' : 'No'}</dd>
          <dt>Audit log kept for</dt>
          <dd>{settings.auditRetentionDays} days</dd>
        </dl>
      </section>
      <section class="panel" aria-labelledby="settings-brand-heading">
        <h2 id="settings-brand-heading">Brand</h2>
        <BrandPreview name={brand.name ?? settings.name} color={brand.color} logo={brand.logo} />
      </section>
      <section class="panel" aria-labelledby="settings-links-heading">
        <h2 id="settings-links-heading">Links</h2>
        <dl class="settings-list">
          <dt>Default domain for new links</dt>
          <dd>{settings.defaultDomain ?? defaults.domain}</dd>
        </dl>
      </section>
      <section class="panel" aria-labelledby="settings-sessions-heading">
        <h2 id="settings-sessions-heading">Sessions</h2>
        <dl class="settings-list">
          <dt>Sign people out after</dt>
          <dd>{hoursText(Math.min(settings.sessionHours ?? defaults.sessionHours, defaults.sessionHours))}</dd>
        </dl>
      </section>
    </>
  );
}
