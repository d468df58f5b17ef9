import { useState } from 'preact/hooks';
import { fieldIn } from '../api/errors.ts';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { FormButtons } from '../shared/FormButtons.tsx';
import { listOf } from '../shared/lists.ts';
import { useFormSubmit } from '../shared/use-form-submit.ts';
import { WEBHOOK_EVENTS, type NewWebhook } from './api.ts';
import { EVENT_TEXT, toggleEvent, type WebhookFormValues } from './webhooks.ts';

interface WebhookFormProps {
  /** Adding one asks whether it starts enabled; editing leaves that to the endpoint's own button. */
  mode: 'create' | 'edit';
  /** Unique per form on the page: its controls' ids start with it. */
  prefix: string;
  initial: WebhookFormValues;
  submitLabel: string;
  busyLabel: string;
  /** Sends the values; an ApiError it throws is shown next to the field it names. */
  onSubmit: (values: WebhookFormValues) => Promise<void>;
  onCancel?: () => void;
}

/** The fields of an endpoint a person types or ticks, as the API names them. */
type WebhookField = Exclude<keyof NewWebhook, 'enabled'>;
const WEBHOOK_FIELDS = listOf<WebhookField>()(['url', 'events', 'description']);

/** An endpoint's URL, description and events (and, when adding, whether it is enabled). The API checks them. */
export function WebhookForm({ mode, prefix, initial, submitLabel, busyLabel, onSubmit, onCancel }: WebhookFormProps) {
  const [values, setValues] = useState(initial);
  const send = async () => {
    await onSubmit(values);
    if (mode === 'create') setValues(initial);
  };
  const { busy, errors, formError, submit } = useFormSubmit<WebhookField>(send, {
    placeOf: (error) => fieldIn(error, WEBHOOK_FIELDS),
    // The events' first box stands for them.
    controlOf: (field) => (field === 'events' ? `${prefix}-event-${WEBHOOK_EVENTS[0]}` : `${prefix}-${field}`),
  });

  const eventsErrorId = `${prefix}-events-error`;
  return (
    <form class="form" onSubmit={submit} noValidate>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      <Field
        id={`${prefix}-url`}
        label="Endpoint URL"
        hint="Where events are POSTed: an http(s) address your receiver listens on."
        error={errors.url}
      >
        {(control) => (
          <input
            {...control}
            type="url"
            name="url"
            required
            inputMode="url"
            autoComplete="off"
            autoCapitalize="none"
            spellcheck={false}
            value={values.url}
            onInput={(event) => setValues({ ...values, url: event.currentTarget.value })}
          />
        )}
      </Field>
      <Field id={`${prefix}-description`} label="Description (optional)" hint="For people: what receives them." error={errors.description}>
        {(control) => (
          <input
            {...control}
            type="text"
            name="description"
            maxLength={200}
            autoComplete="off"
            value={values.description}
            onInput={(event) => setValues({ ...values, description: event.currentTarget.value })}
          />
        )}
      </Field>
      <fieldset class="checks event-checks" aria-describedby={errors.events ? eventsErrorId : undefined}>
        <legend>Events</legend>
        <ul class="event-list">
          {WEBHOOK_EVENTS.map((event) => {
            const id = `${prefix}-event-${event}`;
            return (
              <li key={event}>
                <input
                  id={id}
                  type="checkbox"
                  name="events"
                  value={event}
                  checked={values.events.includes(event)}
                  aria-describedby={errors.events ? `${id}-hint ${eventsErrorId}` : `${id}-hint`}
                  aria-invalid={errors.events ? true : undefined}
                  onChange={(e) => setValues({ ...values, events: toggleEvent(values.events, event, e.currentTarget.checked) })}
                />
                <label for={id}>
                  <code>{event}</code>
                </label>
                <span class="hint" id={`${id}-hint`}>
                  {EVENT_TEXT[event]}
                </span>
              </li>
            );
          })}
        </ul>
        {errors.events && (
          <p class="field-error" id={eventsErrorId}>
            {errors.events}
          </p>
        )}
      </fieldset>
      {mode === 'create' && (
        <label class="check">
          <input
            type="checkbox"
            name="enabled"
            checked={values.enabled}
            onChange={(event) => setValues({ ...values, enabled: event.currentTarget.checked })}
          />
          Enabled: send events from now on
        </label>
      )}
      <FormButtons busy={busy} submitLabel={submitLabel} busyLabel={busyLabel} onCancel={onCancel} />
    </form>
  );
}
