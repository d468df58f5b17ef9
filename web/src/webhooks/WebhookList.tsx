import { useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { ConfirmDialog } from '../shared/ConfirmDialog.tsx';
import { formatDateTime } from '../shared/format.ts';
import { useAnnounce } from '../shared/Status.tsx';
import { useAction } from '../shared/use-action.ts';
import { deleteWebhook, rotateWebhookSecret, type Webhook, type WebhookSecret } from './api.ts';
import { WebhookCard } from './WebhookCard.tsx';

interface WebhookListProps {
  webhooks: readonly Webhook[];
  /** After a change: the list is read again. */
  onChanged: () => void;
}

type Confirming = { action: 'rotate' | 'delete'; webhook: Webhook } | null;

/** The workspace's endpoints, oldest first; one at a time is edited; rotating a secret and deleting are confirmed first. */
export function WebhookList({ webhooks, onChanged }: WebhookListProps) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [editing, setEditing] = useState<number | null>(null);
  const [secrets, setSecrets] = useState<ReadonlyMap<number, WebhookSecret>>(new Map());
  const [confirming, setConfirming] = useState<Confirming>(null);
  const { busy, error, setError, run } = useAction<'confirm'>();

  const setSecret = (id: number, secret: WebhookSecret | null) =>
    setSecrets((shown) => {
      const next = new Map(shown);
      if (secret === null) next.delete(id);
      else next.set(id, secret);
      return next;
    });

  const close = () => {
    setConfirming(null);
    setError(null);
  };

  const confirm = () => {
    if (confirming === null) return;
    const { action, webhook } = confirming;
    run('confirm', async () => {
      if (action === 'rotate') {
        const rotated = await rotateWebhookSecret(api, webhook.id);
        setSecret(webhook.id, rotated);
        announce(
          rotated.previousSecretExpiresAt === null
            ? 'Secret rotated'
            : `Secret rotated: the previous one also signs until ${formatDateTime(rotated.previousSecretExpiresAt)}`,
        );
      } else {
        await deleteWebhook(api, webhook.id);
        setSecret(webhook.id, null);
        announce(`Endpoint ${webhook.url} deleted`);
      }
      close();
      onChanged();
    });
  };

  if (webhooks.length === 0) return <p class="muted">No endpoints yet: add one under “Add an endpoint”.</p>;
  return (
    <>
      <ul class="webhook-list">
        {webhooks.map((webhook) => (
          <WebhookCard
            key={webhook.id}
            webhook={webhook}
            editing={editing === webhook.id}
            secret={secrets.get(webhook.id) ?? null}
            onEdit={() => setEditing(webhook.id)}
            onEditDone={(changed) => {
              setEditing(null);
              if (changed) onChanged();
            }}
            onSecret={(secret) => setSecret(webhook.id, secret)}
            onRotate={() => setConfirming({ action: 'rotate', webhook })}
            onDelete={() => setConfirming({ action: 'delete', webhook })}
            onChanged={onChanged}
          />
        ))}
      </ul>
      <ConfirmDialog
        open={confirming?.action === 'rotate'}
        title="Rotate this secret?"
        confirmLabel="Rotate secret"
        busy={busy !== null}
        error={error}
        onConfirm={confirm}
        onCancel={close}
      >
        <p class="break">
          A new secret signs the requests to <strong>{confirming?.webhook.url}</strong> from now on. The current one keeps signing them too
          for an overlap (24 hours unless the operator set <code>WEBHOOK_SECRET_OVERLAP_HOURS</code>): each request carries both signatures,
          so your receiver can switch to the new secret without refusing a request.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming?.action === 'delete'}
        title="Delete this endpoint?"
        confirmLabel="Delete endpoint"
        busy={busy !== null}
        error={error}
        onConfirm={confirm}
        onCancel={close}
      >
        <p class="break">
          <strong>{confirming?.webhook.url}</strong> is sent nothing more: its delivery log and the deliveries still waiting go with it.
          This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}
