import { useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { CellLabel } from '../shared/CellLabel.tsx';
import { ConfirmDialog } from '../shared/ConfirmDialog.tsx';
import { DateText } from '../shared/DateText.tsx';
import { StackTableHead } from '../shared/StackTableHead.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { useAction } from '../shared/use-action.ts';
import { revokeKey, type ApiKey } from './api.ts';

/** The workspace's keys, each revocable (DELETE /keys/:id) after a confirmation. */
export function KeyTable({ keys, myId, onRevoked }: { keys: ApiKey[]; myId: number; onRevoked: (id: number) => void }) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const { busy, error, setError, run } = useAction<'revoke'>();

  const revoke = () => {
    if (revoking === null) return;
    run('revoke', async () => {
      await revokeKey(api, revoking.id);
      onRevoked(revoking.id);
      announce(`Key ${revoking.name} revoked`);
      setRevoking(null);
    });
  };

  if (keys.length === 0) return <p>No keys yet.</p>;
  return (
    <>
      <div class="table-scroll">
        <table class="key-table stack-table" role="table">
          <caption class="visually-hidden">API keys</caption>
          <StackTableHead columns={['Name', 'Role', 'Belongs to', 'Created', 'Revoked']} actions />
          <tbody role="rowgroup">
            {keys.map((key) => (
              <tr key={key.id} role="row" class={key.revokedAt !== null ? 'row-revoked' : undefined}>
                <th role="rowheader" scope="row">
                  {key.name}
                  {key.id === myId && <span class="muted"> (this session)</span>}
                </th>
                <td role="cell">
                  <CellLabel>Role</CellLabel>
                  {key.role}
                </td>
                <td role="cell">
                  <CellLabel>Belongs to</CellLabel>
                  {key.owner === null ? <span class="muted">The workspace</span> : key.owner.name}
                </td>
                <td role="cell">
                  <CellLabel>Created</CellLabel>
                  <DateText iso={key.createdAt} />
                </td>
                <td role="cell">
                  <CellLabel>Revoked</CellLabel>
                  {key.revokedAt === null ? <span class="muted">No</span> : <DateText iso={key.revokedAt} />}
                </td>
                <td role="cell">
                  {key.revokedAt === null && (
                    <button type="button" class="button-small button-danger" onClick={() => setRevoking(key)}>
                      Revoke<span class="visually-hidden"> key {key.name}</span>
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Revoke key"
        busy={busy !== null}
        error={error}
        onConfirm={revoke}
        onCancel={() => {
          setRevoking(null);
          setError(null);
        }}
      >
        {revoking !== null && (
          <p>
            <strong>{revoking.name}</strong> ({revoking.role}) stops working at once, and its sessions end
            {revoking.id === myId ? ', including this one' : ''}. This cannot be undone.
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}
