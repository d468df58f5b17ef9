import { useRef, useState } from 'preact/hooks';
import { errorMessage, fieldIn, fieldOf } from '../api/errors.ts';
import { DomainSelect } from '../domains/DomainSelect.tsx';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { FormButtons } from '../shared/FormButtons.tsx';
import { listOf } from '../shared/lists.ts';
import { NO_OPTIONS, optionsControlId, type OptionsDraft } from './options/draft.ts';
import { LinkOptionsFields } from './options/LinkOptionsFields.tsx';
import type { Domain } from '../domains/api.ts';
import type { NewLink } from './api.ts';

export interface LinkFormValues {
  url: string;
  /** The host of the link's domain; '' for the default domain. */
  domain: string;
  alias: string;
  /** The `<input type=datetime-local>` value: local wall time, '' for none. */
  expiresAt: string;
  title: string;
  /** Comma-separated. */
  tags: string;
  options: OptionsDraft;
}

interface LinkFormProps {
  /** The domain and alias fields exist only when creating: a link's domain and code never change. */
  mode: 'create' | 'edit';
  initial: LinkFormValues;
  /** The workspace's domains to choose from, default first; no choice is shown for the default domain alone. */
  domains?: readonly Domain[];
  submitLabel: string;
  busyLabel: string;
  /** Sends the values; an ApiError it throws is shown next to the field its code concerns. */
  onSubmit: (values: LinkFormValues) => Promise<void>;
  onCancel?: () => void;
}

/** The fields of a link besides its options, as the API names them. */
type LinkField = Exclude<keyof NewLink, 'options'>;
const LINK_FIELDS = listOf<LinkField>()(['url', 'domain', 'alias', 'expiresAt', 'title', 'tags']);

type FieldErrors = Partial<Record<LinkField, string>>;

/** The fields of a link, for creating one or editing it. The API checks every rule; its message is shown. */
export function LinkForm({ mode, initial, domains = [], submitLabel, busyLabel, onSubmit, onCancel }: LinkFormProps) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  /** Errors of the options, by the id of the control they are about. */
  const [optionErrors, setOptionErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const prefix = `link-${mode}`;
  const showDomain = mode === 'create' && domains.length > 1;
  /** Whether the form shows `field`, so that an error about it can stand next to it. */
  const shows = (field: LinkField) => (field === 'domain' ? showDomain : field !== 'alias' || mode === 'create');

  const set = (field: keyof LinkFormValues) => (event: { currentTarget: HTMLInputElement }) =>
    setValues({ ...values, [field]: event.currentTarget.value });

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setErrors({});
    setOptionErrors({});
    setFormError(null);
    try {
      await onSubmit(values);
    } catch (error) {
      // An error about an option names it (options.targets[1].url): shown on that control, whatever its code.
      const named = fieldOf(error);
      if (named?.startsWith('options') === true) {
        const id = optionsControlId(prefix, named);
        setOptionErrors({ [id]: optionMessage(error) });
        requestAnimationFrame(() => form.current?.querySelector<HTMLElement>(`#${id}`)?.focus());
        return;
      }
      const field = fieldIn(error, LINK_FIELDS.filter(shows));
      if (field !== null) {
        setErrors({ [field]: errorMessage(error) });
        // Focus the field in error: its message is read with it (aria-describedby).
        requestAnimationFrame(() => form.current?.querySelector<HTMLElement>(`#${prefix}-${field}`)?.focus());
      } else {
        setFormError(errorMessage(error));
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={form} class="form" onSubmit={(event) => void submit(event)} noValidate>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      <Field
        id={`${prefix}-url`}
        label="Target URL"
        hint="The address the short link sends people to: http:// or https://."
        error={errors.url}
      >
        {(control) => (
          <input {...control} type="url" name="url" required inputMode="url" autoComplete="url" value={values.url} onInput={set('url')} />
        )}
      </Field>
      {showDomain && (
        <Field id={`${prefix}-domain`} label="Short domain" hint="The host of the short URL." error={errors.domain}>
          {(control) => (
            <DomainSelect
              control={control}
              name="domain"
              domains={domains}
              value={values.domain}
              onChange={(domain) => setValues({ ...values, domain })}
            />
          )}
        </Field>
      )}
      {mode === 'create' && (
        <Field
          id={`${prefix}-alias`}
          label="Custom alias (optional)"
          hint="3–64 letters, digits, - or _. Leave empty for a generated code."
          error={errors.alias}
        >
          {(control) => (
            <input
              {...control}
              type="text"
              name="alias"
              autoComplete="off"
              spellcheck={false}
              value={values.alias}
              onInput={set('alias')}
            />
          )}
        </Field>
      )}
      <Field
        id={`${prefix}-expiresAt`}
        label="Expires (optional)"
        hint={`In your time zone (${timeZone()}). Leave empty to keep the link for good.`}
        error={errors.expiresAt}
      >
        {(control) => <input {...control} type="datetime-local" name="expiresAt" value={values.expiresAt} onInput={set('expiresAt')} />}
      </Field>
      <Field id={`${prefix}-title`} label="Title (optional)" hint="Up to 200 characters, for finding the link later." error={errors.title}>
        {(control) => <input {...control} type="text" name="title" maxLength={200} value={values.title} onInput={set('title')} />}
      </Field>
      <Field
        id={`${prefix}-tags`}
        label="Tags (optional)"
        hint="Separated by commas, up to 10, e.g. spring, newsletter."
        error={errors.tags}
      >
        {(control) => <input {...control} type="text" name="tags" autoComplete="off" value={values.tags} onInput={set('tags')} />}
      </Field>
      <LinkOptionsFields
        prefix={prefix}
        draft={values.options}
        onChange={(options) => setValues({ ...values, options })}
        errors={optionErrors}
        open={initial.options !== NO_OPTIONS || Object.keys(optionErrors).length > 0}
      />
      <FormButtons busy={busy} submitLabel={submitLabel} busyLabel={busyLabel} onCancel={onCancel} />
    </form>
  );
}

/** An option's error as shown on its control: without the API's name of the field, which the control's label says. */
function optionMessage(error: unknown): string {
  const text = errorMessage(error).replace(/^options\.[\w.[\]]+\s+/, '');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function timeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
