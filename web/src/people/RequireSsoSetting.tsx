import { useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { ErrorMessage } from '../shared/Field.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { updateWorkspace, type WorkspaceSettings } from './api.ts';
import { personMessage } from './fields.ts';

/**
 * "Require single sign-on" (admins): members' sessions signed in otherwise are held at the door. It is turned on
 * only from a session that signed in by single sign-on, so that nobody locks themselves out; the API says whether
 * this one may (`canRequireSso`) and checks it again. Turning it off is always allowed.
 */
export function RequireSsoSetting({ settings }: { settings: WorkspaceSettings }) {
  const { api, options } = useApp();
  const announce = useAnnounce();
  const [required, setRequired] = useState(settings.requireSso);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const name = options.ssoName ?? 'single sign-on';
  const why = !options.sso
    ? 'Single sign-on is not set up on this service: whoever runs it sets OIDC_ISSUER and OIDC_CLIENT_ID (see docs/sso.md).'
    : settings.canRequireSso
      ? null
      : `To turn this on, sign out and sign in with ${name}: a session signed in otherwise would be locked out at once.`;
  const disabled = !required && why !== null;

  const change = async (input: HTMLInputElement) => {
    const wanted = input.checked;
    if (busy) {
      input.checked = !wanted;
      return;
    }
    // Shown at once; the box goes back if the API refuses.
    setRequired(wanted);
    setBusy(true);
    setError(null);
    try {
      const saved = await updateWorkspace(api, { requireSso: wanted });
      setRequired(saved.requireSso);
      announce(saved.requireSso ? 'Single sign-on is now required' : 'Single sign-on is no longer required');
    } catch (failure) {
      setRequired(!wanted);
      setError(personMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-labelledby="workspace-sso-heading">
      <h2 id="workspace-sso-heading">Single sign-on</h2>
      <label class="check">
        <input
          type="checkbox"
          id="workspace-requireSso"
          checked={required}
          disabled={disabled}
          aria-disabled={busy ? true : undefined}
          aria-describedby="workspace-requireSso-hint"
          onChange={(event) => void change(event.currentTarget)}
        />{' '}
        Require single sign-on
      </label>
      <p class="hint" id="workspace-requireSso-hint">
        Members then sign in with {name} only: a password session in this workspace reaches nothing but its profile until it signs in again.{' '}
        {why}
      </p>
      {error !== null && <ErrorMessage>{error}</ErrorMessage>}
    </section>
  );
}
