import { ROLE_LABELS } from '../../keys/roles.ts';
import { CellLabel } from '../../shared/CellLabel.tsx';
import { DateText } from '../../shared/DateText.tsx';
import { StackTableHead } from '../../shared/StackTableHead.tsx';
import type { Member } from '../api.ts';

/** What may be done to a member from the list; each opens its dialog (MemberDialogs.tsx) or makes a link. */
export type MemberAction = 'role' | 'remove' | 'leave' | 'reset-link';

interface MemberTableProps {
  members: Member[];
  /** An admin: roles, removing, reset links. */
  canManage: boolean;
  /** Whether the service emails reset links itself; when it does not, an admin can make one to pass on. */
  mail: boolean;
  busyId: number | null;
  onAction: (action: MemberAction, member: Member) => void;
}

/** The workspace's members (GET /members): name, email, role and when they joined; you are marked. */
export function MemberTable({ members, canManage, mail, busyId, onAction }: MemberTableProps) {
  if (members.length === 0) return <p>No members yet.</p>;
  return (
    <div class="table-scroll">
      <table class="member-table stack-table" role="table">
        <caption class="visually-hidden">Members</caption>
        <StackTableHead columns={['Name', 'Email', 'Role', 'Joined']} actions />
        <tbody role="rowgroup">
          {members.map((member) => (
            <tr key={member.id} role="row" id={`member-${member.id}`}>
              <th role="rowheader" scope="row">
                {member.name}
                {member.you && <span class="muted"> (you)</span>}
              </th>
              <td role="cell" class="cell-email">
                <CellLabel>Email</CellLabel>
                {member.email}
              </td>
              <td role="cell">
                <CellLabel>Role</CellLabel>
                {ROLE_LABELS[member.role]}
              </td>
              <td role="cell">
                <CellLabel>Joined</CellLabel>
                <DateText iso={member.joinedAt} />
              </td>
              <td role="cell">
                <MemberButtons member={member} canManage={canManage} mail={mail} busy={busyId === member.id} onAction={onAction} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface MemberButtonsProps {
  member: Member;
  canManage: boolean;
  mail: boolean;
  busy: boolean;
  onAction: (action: MemberAction, member: Member) => void;
}

function MemberButtons({ member, canManage, mail, busy, onAction }: MemberButtonsProps) {
  const who = <span class="visually-hidden"> {member.you ? '(you)' : member.name}</span>;
  return (
    <div class="row-actions">
      {canManage && (
        <button type="button" class="button-small" onClick={() => onAction('role', member)}>
          Change role{who}
        </button>
      )}
      {canManage && !mail && !member.you && (
        <button type="button" class="button-small" aria-disabled={busy} onClick={() => !busy && onAction('reset-link', member)}>
          {busy ? 'Making…' : 'Reset link'}
          {who}
        </button>
      )}
      {member.you ? (
        <button type="button" class="button-small button-danger" onClick={() => onAction('leave', member)}>
          Leave
        </button>
      ) : (
        canManage && (
          <button type="button" class="button-small button-danger" onClick={() => onAction('remove', member)}>
            Remove{who}
          </button>
        )
      )}
    </div>
  );
}
