import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import type { Role } from '../../../../src/auth/roles.ts';
import { useApp } from '../../auth/context.ts';
import { ROLE_CHOICES, ROLE_LABELS } from '../../keys/roles.ts';
import { ConfirmDialog } from '../../shared/ConfirmDialog.tsx';
import { Field } from '../../shared/Field.tsx';
import { useAnnounce } from '../../shared/Status.tsx';
import { useAction } from '../../shared/use-action.ts';
import { changeRole, removeMember, type Member } from '../api.ts';

interface DialogProps {
  /** The member the dialog is about; null: closed. */
  member: Member | null;
  onClose: () => void;
  /** The list is read again. */
  onChanged: () => void;
}

/** A member's role (PATCH /members/:id); the workspace's last admin keeps theirs (409 LAST_ADMIN). */
export function RoleDialog({ member, onClose, onChanged }: DialogProps) {
  const { api, signedIn } = useApp();
  const announce = useAnnounce();
  const [role, setRole] = useState<Role>('member');
  const { busy, error, setError, run } = useAction<'role'>();
  useEffect(() => {
    if (member !== null) setRole(member.role);
  }, [member]);

  const save = () => {
    if (member === null) return;
    run('role', async () => {
      await changeRole(api, member.id, role);
      announce(`${member.name} is now ${ROLE_LABELS[role].toLowerCase()}`);
      // Your own role is your session's: the navigation changes with it.
      if (member.you) signedIn(await api.getSession());
      onChanged();
      onClose();
    });
  };

  return (
    <ConfirmDialog
      open={member !== null}
      title="Change role"
      confirmLabel="Save role"
      busy={busy !== null}
      error={error}
      onConfirm={save}
      onCancel={() => {
        setError(null);
        onClose();
      }}
    >
      {member !== null && (
        <Field id="member-role" label={`Role of ${member.name}`} hint={member.you ? 'Yours: what you may do changes at once.' : undefined}>
          {(control) => (
            <select {...control} value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
              {ROLE_CHOICES.map((r) => (
                <option key={r} value={r}>
                  {ROLE_LABELS[r]}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
    </ConfirmDialog>
  );
}

/**
 * Removing a member (an admin), or leaving (yourself): DELETE /members/:id. Their member key is revoked, so
 * leaving ends this session unless the service moved it to another of your workspaces.
 */
export function RemoveDialog({ member, onClose, onChanged }: DialogProps) {
  const { api, session, signedIn, signedOut } = useApp();
  const { route } = useLocation();
  const announce = useAnnounce();
  const { busy, error, setError, run } = useAction<'remove'>();
  const leaving = member?.you === true;
  const workspace = session.workspace.name;

  const remove = () => {
    if (member === null) return;
    run('remove', async () => {
      await removeMember(api, member.id);
      if (!leaving) {
        announce(`${member.name} removed from ${workspace}`);
        onChanged();
        onClose();
        return;
      }
      const others = session.workspaces.length > 1;
      try {
        signedIn(await api.getSession());
        route('/app/links');
        announce(`You left ${workspace}`);
      } catch {
        signedOut(`You left ${workspace}.${others ? ' Sign in again to open your other workspaces.' : ''}`);
      }
    });
  };

  return (
    <ConfirmDialog
      open={member !== null}
      title={leaving ? `Leave ${workspace}?` : 'Remove this member?'}
      confirmLabel={leaving ? 'Leave workspace' : 'Remove member'}
      busy={busy !== null}
      error={error}
      onConfirm={remove}
      onCancel={() => {
        setError(null);
        onClose();
      }}
    >
      {member !== null &&
        (leaving ? (
          <p>You lose access to its links, stats and settings, and your API keys in it stop working. Only an invitation brings you back.</p>
        ) : (
          <p>
            <strong>{member.name}</strong> ({member.email}) loses access to {workspace} at once: their sessions in it end and their API keys
            in it stop working. Their links stay.
          </p>
        ))}
    </ConfirmDialog>
  );
}
