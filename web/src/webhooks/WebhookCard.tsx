import { useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { useAnnounce } from '../shared/Status.tsx';
import { useAction } from '../shared/use-action.ts';
import { useEditFocus } from '../shared/use-edit-focus.ts';
import { updateWebhook, type Webhook, type WebhookSecret } from './api.ts';
import { DeliveryLog } from './DeliveryLog.tsx';
import { SendTestEvent } from './SendTestEvent.tsx';
import { WebhookActions } from './WebhookActions.tsx';
import { WebhookForm } from './WebhookForm.tsx';
import { webhookChanges, webhookFormValues, type WebhookFormValues } from './webhooks.ts';
import { WebhookSummary } from './WebhookSummary.tsx';

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
  const [logOpen, setLogOpen] = useState(false);
  const { card, editButton } = useEditFocus<HTMLLIElement>(editing);
  const action = useAction<'enabled' | 'secret'>();
  const id = `webhook-${webhook.id}`;
  const name = webhook.description === '' ? webhook.url : webhook.description;

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
          <WebhookSummary webhook={webhook} />
          <WebhookActions
            webhook={webhook}
            name={name}
            secret={secret}
            editButton={editButton}
            action={action}
            onEdit={onEdit}
            onSecret={onSecret}
            onRotate={onRotate}
            onDelete={onDelete}
            onChanged={onChanged}
          />
          {webhook.enabled && <SendTestEvent webhook={webhook} name={name} onLanded={onChanged} />}
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
