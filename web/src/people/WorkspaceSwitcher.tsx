import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import type { Session } from '../api/client.ts';
import { useAuth } from '../auth/context.ts';
import { ROLE_LABELS } from '../keys/roles.ts';
import { useAnnounce } from '../shared/Status.tsx';
import { useAction } from '../shared/use-action.ts';
import { switchWorkspace } from './api.ts';

/**
 * The workspaces of a person who belongs to several: a select and a button (a select that switched on change would
 * switch at each arrow key). Switching moves the session (POST /auth/session/workspace); a link's page of the old
 * workspace gives way to the list.
 */
export function WorkspaceSwitcher({ session }: { session: Session }) {
  const { api, signedIn } = useAuth();
  const { path, route } = useLocation();
  const announce = useAnnounce();
  const [chosen, setChosen] = useState(session.workspace.id);
  const { busy, error, run } = useAction<'switch'>();

  const submit = (event: Event) => {
    event.preventDefault();
    if (chosen === session.workspace.id) return;
    run('switch', async () => {
      const moved = await switchWorkspace(api, chosen);
      signedIn(moved);
      if (/^\/app\/links\/(?!new$)/.test(path)) route('/app/links');
      announce(`Switched to ${moved.workspace.name}`);
    });
  };

  return (
    <form class="switcher" onSubmit={submit}>
      <label for="workspace-switch" class="visually-hidden">
        Workspace
      </label>
      <select
        id="workspace-switch"
        value={String(chosen)}
        onChange={(event) => setChosen(Number(event.currentTarget.value))}
        aria-describedby={error !== null ? 'workspace-switch-error' : undefined}
      >
        {session.workspaces.map((w) => (
          <option key={w.id} value={String(w.id)}>
            {w.name} ({ROLE_LABELS[w.role].toLowerCase()})
          </option>
        ))}
      </select>
      <button type="submit" class="button-small" aria-disabled={busy !== null}>
        {busy !== null ? 'Switching…' : 'Switch'}
      </button>
      {error !== null && (
        <p class="field-error" id="workspace-switch-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
