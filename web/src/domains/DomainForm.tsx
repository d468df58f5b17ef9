import { useState } from 'preact/hooks';
import { fieldIn } from '../api/errors.ts';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { FormButtons } from '../shared/FormButtons.tsx';
import { useFormSubmit } from '../shared/use-form-submit.ts';
import type { Fallback } from './api.ts';
import { domainFields, type DomainField, type DomainFormValues } from './domains.ts';

/** The three fallbacks as people read them: in the form, and on each domain of the list. */
export const FALLBACK_TEXT: readonly { field: Fallback; label: string; name: string; hint: string; none: string }[] = [
  {
    field: 'rootRedirect',
    label: 'Root redirect (optional)',
    name: 'Root',
    hint: 'Where the domain’s own address, with no code after it, sends people. Empty: a 404 answer.',
    none: '404 answer',
  },
  {
    field: 'notFoundRedirect',
    label: 'Not-found redirect (optional)',
    name: 'Not found',
    hint: 'Where a code that does not exist on the domain sends people. Empty: a 404 answer.',
    none: '404 answer',
  },
  {
    field: 'expiredRedirect',
    label: 'Expired redirect (optional)',
    name: 'Expired',
    hint: 'Where an expired or disabled link sends people. Empty: a 410 answer.',
    none: '410 answer',
  },
];

interface DomainFormProps {
  /** The host field exists only when adding: a domain's host never changes. */
  mode: 'create' | 'edit';
  initial: DomainFormValues;
  submitLabel: string;
  busyLabel: string;
  /** Sends the values; an ApiError it throws is shown next to the field it names (fieldOf). */
  onSubmit: (values: DomainFormValues) => Promise<void>;
  onCancel?: () => void;
}

/** A domain's host and its three fallback URLs, for adding a domain or changing its fallbacks. The API checks them. */
export function DomainForm({ mode, initial, submitLabel, busyLabel, onSubmit, onCancel }: DomainFormProps) {
  const [values, setValues] = useState(initial);
  const prefix = `domain-${mode}`;
  const send = async () => {
    await onSubmit(values);
    if (mode === 'create') setValues(initial);
  };
  const { busy, errors, formError, submit } = useFormSubmit<DomainField>(send, {
    placeOf: (error) => fieldIn(error, domainFields(mode)),
    controlOf: (field) => `${prefix}-${field}`,
  });

  const set = (field: keyof DomainFormValues) => (event: { currentTarget: HTMLInputElement }) =>
    setValues({ ...values, [field]: event.currentTarget.value });

  return (
    <form class="form" onSubmit={submit} noValidate>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      {mode === 'create' && (
        <Field id={`${prefix}-host`} label="Host" hint="A name you own, such as go.example.com: no https://, no path." error={errors.host}>
          {(control) => (
            <input
              {...control}
              type="text"
              name="host"
              required
              inputMode="url"
              autoComplete="off"
              autoCapitalize="none"
              spellcheck={false}
              value={values.host}
              onInput={set('host')}
            />
          )}
        </Field>
      )}
      {FALLBACK_TEXT.map(({ field, label, hint }) => (
        <Field key={field} id={`${prefix}-${field}`} label={label} hint={hint} error={errors[field]}>
          {(control) => <input {...control} type="url" name={field} inputMode="url" value={values[field]} onInput={set(field)} />}
        </Field>
      ))}
      <FormButtons busy={busy} submitLabel={submitLabel} busyLabel={busyLabel} onCancel={onCancel} />
    </form>
  );
}
