import { useState } from 'preact/hooks';
import { useApp } from '../../auth/context.ts';
import { ErrorMessage } from '../../shared/Field.tsx';
import { useAnnounce } from '../../shared/Status.tsx';
import { updateWorkspace, type WorkspaceSettings } from '../api.ts';
import { personMessage } from '../fields.ts';

/**
 * "Require a second factor" (admins; PATCH /workspace requireSecondFactor), saved as it is ticked, as "Require single
 * sign-on" is. It is turned on only from a session that signed in with a second factor (or added one since), so that
 * nobody locks themselves out; the API says whether this one may (`canRequireSecondFactor`) and checks it again.
 */
export function RequireSecondFactor({ settings }: { settings: WorkspaceSettings }) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [required, setRequired] = useState(settings.requireSecondFactor);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const disabled = !required && !settings.canRequireSecondFactor;

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
      const saved = await updateWorkspace(api, { requireSecondFactor: wanted });
      setRequired(saved.requireSecondFactor);
      announce(saved.requireSecondFactor ? 'A second factor is now required' : 'A second factor is no longer required');
    } catch (failure) {
      setRequired(!wanted);
      setError(personMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-labelledby="workspace-second-factor-heading">
      <h2 id="workspace-second-factor-heading">Second factor</h2>
      <label class="check">
        <input
          type="checkbox"
          id="workspace-requireSecondFactor"
          checked={required}
          disabled={disabled}
          aria-disabled={busy ? true : undefined}
          aria-describedby="workspace-requireSecondFactor-hint"
          onChange={(event) => void change(event.currentTarget)}
        />{' '}
        Require a second factor
      </label>
      <p class="hint" id="workspace-requireSecondFactor-hint">
        Members then sign in with a passkey, or confirm their password with an authenticator app or a recovery code; one without reaches
        nothing but their profile, where they add one. API keys are not affected.
        {disabled && (
          <>
            {' '}
            To turn this on, first add a passkey or an authenticator app in <a href="/app/profile#second-factors">your profile</a>.
          </>
        )}
      </p>
      {error !== null && <ErrorMessage>{error}</ErrorMessage>}
    </section>
  );
}
