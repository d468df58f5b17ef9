import { useEffect, useRef, useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { errorMessage } from '../api/errors.ts';
import { formatCount, formatDateTime } from '../shared/format.ts';
import { webhookChanges, webhookFormValues, type WebhookFormValues } from './webhooks.ts';
import { DeliveryLog } from './DeliveryLog.tsx';
import { ErrorMessage } from '../shared/Field.tsx';
import { SecretValue } from '../shared/SecretValue.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { WebhookForm } from './WebhookForm.tsx';
import { getWebhookSecret, updateWebhook, type Webhook, type WebhookSecret } from './api.ts';

interface WebhookCardProps {
  webhook: Webhook;
  editing: boolean;
  /** Its secret, once revealed or rotated; null: hidden. */
  secret: WebhookSecret | null;
  onEdit: () => void;
  onEditDone: (changed: boolean) => void;
  onSecret: (secret: WebhookSecret | null) => void;
  onRotate: () => void;
  onDelete: () => void;
  /** After a change: the list is read again. */
  onChanged: () => void;
}

/** One endpoint: its URL, events and counts; enable or disable, edit, its secret, delete, and its delivery log. */
export function WebhookCard({ webhook, editing, secret, onEdit, onEditDone, onSecret, onRotate, onDelete, onChanged }: WebhookCardProps) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [busy, setBusy] = useState<'enabled' | 'secret' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [logOpen, setLogOpen] = useState(false);
  const card = useRef<HTMLLIElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(editing);
  const id = `webhook-${webhook.id}`;
  const name = webhook.description === '' ? webhook.url : webhook.description;

  // Into the form when it opens; back to its button when it closes.
  useEffect(() => {
    if (editing) card.current?.querySelector<HTMLElement>('input')?.focus();
    else if (wasEditing.current) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  const save = async (values: WebhookFormValues) => {
    const changes = webhookChanges(webhook, values);
    if (Object.keys(changes).length === 0) {
      announce('Nothing was changed');
      onEditDone(false);
      return;
    }
    await updateWebhook(api, webhook.id, changes);
    announce('Endpoint saved');
    onEditDone(true);
  };

  const setEnabled = async (enabled: boolean) => {
    if (busy !== null) return;
    setBusy('enabled');
    setError(null);
    try {
      await updateWebhook(api, webhook.id, { enabled });
      announce(enabled ? 'Endpoint enabled: events are sent to it again' : 'Endpoint disabled: nothing new is sent to it');
      onChanged();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(null);
    }
  };

  const reveal = async () => {
    if (busy !== null) return;
    if (secret !== null) {
      onSecret(null);
      return;
    }
    setBusy('secret');
    setError(null);
    try {
      onSecret(await getWebhookSecret(api, webhook.id));
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(null);
    }
  };

  const overlapUntil = secret?.previousSecretExpiresAt ?? webhook.previousSecretExpiresAt;
  const overlapping = overlapUntil !== null && Date.parse(overlapUntil) > Date.now();

  return (
    <li class={webhook.enabled ? 'webhook' : 'webhook webhook-disabled'} ref={card} aria-labelledby={`${id}-url`}>
      <div class="webhook-head">
        <h3 id={`${id}-url`} class="webhook-url break">
          {webhook.url}
        </h3>
        <span class={webhook.enabled ? 'badge badge-active' : 'badge badge-disabled'}>{webhook.enabled ? 'Enabled' : 'Disabled'}</span>
      </div>
      {webhook.description !== '' && <p class="webhook-description">{webhook.description}</p>}
      {editing ? (
        <WebhookForm
          mode="edit"
          prefix={`${id}-edit`}
          initial={webhookFormValues(webhook)}
          submitLabel="Save endpoint"
          busyLabel="Saving…"
          onSubmit={save}
          onCancel={() => onEditDone(false)}
        />
      ) : (
        <>
          <dl class="details webhook-details">
            <div>
              <dt>Events</dt>
              <dd>
                <ul class="tags" aria-label="Events">
                  {webhook.events.map((event) => (
                    <li key={event} class="tag">
                      {event}
                    </li>
                  ))}
                </ul>
              </dd>
            </div>
            <div>
              <dt>Deliveries</dt>
              <dd>
                <span class="webhook-pending">{`${formatCount(webhook.pending)} waiting`}</span>
                {', '}
                <span class={webhook.dead > 0 ? 'webhook-dead has-dead' : 'webhook-dead'}>{`${formatCount(webhook.dead)} dead`}</span>
              </dd>
            </div>
          </dl>
          {error !== null && <ErrorMessage>{error}</ErrorMessage>}
          {secret !== null && (
            <div class="webhook-secret">
              <p class="secret-label">Signing secret</p>
              <SecretValue id={`${id}-secret`} secret={secret.secret} what={`the signing secret of ${name}`} />
            </div>
          )}
          {overlapping && (
            <p class="hint overlap">
              Rotated: the previous secret also signs every request until {formatDateTime(overlapUntil)} (each request carries both
              signatures). Switch your receiver to the new secret before then.
            </p>
          )}
          <div class="button-row webhook-actions">
            <button type="button" class="button-small" onClick={() => void setEnabled(!webhook.enabled)} aria-disabled={busy === 'enabled'}>
              {webhook.enabled ? 'Disable' : 'Enable'}
              <span class="visually-hidden"> {name}</span>
            </button>
            <button type="button" class="button-small" ref={editButton} onClick={onEdit}>
              Edit<span class="visually-hidden"> {name}</span>
            </button>
            <button
              type="button"
              class="button-small"
              onClick={() => void reveal()}
              aria-disabled={busy === 'secret'}
              aria-expanded={secret !== null}
            >
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
          <button
            type="button"
            class="log-toggle"
            aria-expanded={logOpen}
            aria-controls={logOpen ? `log-${webhook.id}` : undefined}
            onClick={() => setLogOpen(!logOpen)}
          >
            {logOpen ? 'Hide delivery log' : 'Show delivery log'}
            <span class="visually-hidden"> of {name}</span>
          </button>
          {logOpen && <DeliveryLog webhookId={webhook.id} name={name} onChanged={onChanged} />}
        </>
      )}
    </li>
  );
}
