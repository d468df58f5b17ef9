import type { RefObject } from 'preact';
import { useApp } from '../auth/context.ts';
import { ErrorMessage } from '../shared/Field.tsx';
import { formatDateTime } from '../shared/format.ts';
import { SecretValue } from '../shared/SecretValue.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import type { Action } from '../shared/use-action.ts';
import { getWebhookSecret, updateWebhook, type Webhook, type WebhookSecret } from './api.ts';

interface WebhookActionsProps {
  webhook: Webhook;
  /** The endpoint's name for the buttons' accessible names. */
  name: string;
  /** Its secret, once revealed or rotated; null: hidden. */
  secret: WebhookSecret | null;
  /** The Edit button, which takes the focus back when the form closes. */
  editButton: RefObject<HTMLButtonElement | null>;
  /** The card's calls, kept while the card is edited (its error too). */
  action: Action<'enabled' | 'secret'>;
  onEdit: () => void;
  onSecret: (secret: WebhookSecret | null) => void;
  onRotate: () => void;
  onDelete: () => void;
  onChanged: () => void;
}

/** An endpoint's buttons (enable or disable, edit, reveal or hide its secret, rotate it, delete), and its secret once shown. */
export function WebhookActions(props: WebhookActionsProps) {
  const { webhook, name, secret, editButton, action, onEdit, onSecret, onRotate, onDelete, onChanged } = props;
  const { api } = useApp();
  const announce = useAnnounce();
  const { busy, error, run } = action;
  const id = `webhook-${webhook.id}`;

  const setEnabled = (enabled: boolean) =>
    run('enabled', async () => {
      await updateWebhook(api, webhook.id, { enabled });
      announce(enabled ? 'Endpoint enabled: events are sent to it again' : 'Endpoint disabled: nothing new is sent to it');
      onChanged();
    });

  const reveal = () => {
    if (busy !== null) return;
    if (secret !== null) onSecret(null);
    else run('secret', async () => onSecret(await getWebhookSecret(api, webhook.id)));
  };

  const overlapUntil = secret?.previousSecretExpiresAt ?? webhook.previousSecretExpiresAt;
  const overlapping = overlapUntil !== null && Date.parse(overlapUntil) > Date.now();

  return (
    <>
      {error !== null && <ErrorMessage>{error}</ErrorMessage>}
      {secret !== null && (
        <div class="webhook-secret">
          <p class="secret-label">Signing secret</p>
          <SecretValue id={`${id}-secret`} secret={secret.secret} what={`the signing secret of ${name}`} />
        </div>
      )}
      {overlapping && (
        <p class="hint overlap">
          Rotated: the previous secret also signs every request until {formatDateTime(overlapUntil)} (each request carries both signatures).
          Switch your receiver to the new secret before then.
        </p>
      )}
      <div class="button-row webhook-actions">
        <button type="button" class="button-small" onClick={() => setEnabled(!webhook.enabled)} aria-disabled={busy === 'enabled'}>
          {webhook.enabled ? 'Disable' : 'Enable'}
          <span class="visually-hidden"> {name}</span>
        </button>
        <button type="button" class="button-small" ref={editButton} onClick={onEdit}>
          Edit<span class="visually-hidden"> {name}</span>
        </button>
        <button type="button" class="button-small" onClick={reveal} aria-disabled={busy === 'secret'} aria-expanded={secret !== null}>
          {secret === null ? 'Reveal secret' : 'Hide secret'}
          <span class="visually-hidden"> of {name}</span>
        </button>
        <button type="button" class="button-small" onClick={onRotate}>
          Rotate secret<span class="visually-hidden"> of {name}</span>
        </button>
        <button type="button" class="button-small button-danger" onClick={onDelete}>
          Delete<span class="visually-hidden"> {name}</span>
        </button>
      </div>
    </>
  );
}
