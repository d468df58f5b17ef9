import { useState } from 'preact/hooks';
import { useApp } from '../../auth/context.ts';
import { ROLE_LABELS } from '../../keys/roles.ts';
import { CellLabel } from '../../shared/CellLabel.tsx';
import { ConfirmDialog } from '../../shared/ConfirmDialog.tsx';
import { DateText } from '../../shared/DateText.tsx';
import { StackTableHead } from '../../shared/StackTableHead.tsx';
import { useAnnounce } from '../../shared/Status.tsx';
import { useAction } from '../../shared/use-action.ts';
import { withdrawInvitation, type Invitation } from '../api.ts';

/** The open invitations (GET /invitations), each withdrawable (DELETE /invitations/:id) after a confirmation. */
export function InvitationTable({ invitations, onWithdrawn }: { invitations: Invitation[]; onWithdrawn: () => void }) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [withdrawing, setWithdrawing] = useState<Invitation | null>(null);
  const { busy, error, setError, run } = useAction<'withdraw'>();

  const withdraw = () => {
    if (withdrawing === null) return;
    run('withdraw', async () => {
      await withdrawInvitation(api, withdrawing.id);
      announce(`Invitation for ${withdrawing.email} withdrawn`);
      setWithdrawing(null);
      onWithdrawn();
    });
  };

  if (invitations.length === 0) return <p class="muted">No open invitations.</p>;
  return (
    <>
      <div class="table-scroll">
        <table class="invitation-table stack-table" role="table">
          <caption class="visually-hidden">Open invitations</caption>
          <StackTableHead columns={['Email', 'Role', 'Invited by', 'Expires']} actions />
          <tbody role="rowgroup">
            {invitations.map((invitation) => (
              <tr key={invitation.id} role="row">
                <th role="rowheader" scope="row" class="cell-email">
                  {invitation.email}
                </th>
                <td role="cell">
                  <CellLabel>Role</CellLabel>
                  {ROLE_LABELS[invitation.role]}
                </td>
                <td role="cell">
                  <CellLabel>Invited by</CellLabel>
                  {invitation.invitedBy?.name ?? <span class="muted">An API key</span>}
                </td>
                <td role="cell">
                  <CellLabel>Expires</CellLabel>
                  <DateText iso={invitation.expiresAt} />
                </td>
                <td role="cell">
                  <button type="button" class="button-small button-danger" onClick={() => setWithdrawing(invitation)}>
                    Withdraw<span class="visually-hidden"> invitation for {invitation.email}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ConfirmDialog
        open={withdrawing !== null}
        title="Withdraw this invitation?"
        confirmLabel="Withdraw invitation"
        busy={busy !== null}
        error={error}
        onConfirm={withdraw}
        onCancel={() => {
          setWithdrawing(null);
          setError(null);
        }}
      >
        {withdrawing !== null && (
          <p>
            The link sent to <strong>{withdrawing.email}</strong> stops working. You can invite them again later.
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}
