import { useState } from 'preact/hooks';
import { errorMessage, fieldIn, fieldOf } from '../api/errors.ts';
import type { Domain } from '../domains/api.ts';
import { DomainSelect } from '../domains/DomainSelect.tsx';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { FormButtons } from '../shared/FormButtons.tsx';
import { listOf } from '../shared/lists.ts';
import { useFormSubmit } from '../shared/use-form-submit.ts';
import type { NewLink } from './api.ts';
import { optionsControlId } from './options/control-ids.ts';
import { NO_OPTIONS, type OptionsDraft } from './options/draft.ts';
import { LinkOptionsFields } from './options/LinkOptionsFields.tsx';

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
  /** Sends the values; an ApiError it throws is shown next to the field it names (fieldOf). */
  onSubmit: (values: LinkFormValues) => Promise<void>;
  onCancel?: () => void;
}

/** The fields of a link besides its options, as the API names them (startsAt: not in this form yet). */
type LinkField = Exclude<keyof NewLink, 'options' | 'startsAt'>;
const LINK_FIELDS = listOf<LinkField>()(['url', 'domain', 'alias', 'expiresAt', 'title', 'tags']);

/** The fields of a link, for creating one or editing it. The API checks every rule; its message is shown. */
export function LinkForm({ mode, initial, domains = [], submitLabel, busyLabel, onSubmit, onCancel }: LinkFormProps) {
  const [values, setValues] = useState(initial);
  const prefix = `link-${mode}`;
  const showDomain = mode === 'create' && domains.length > 1;
  /** The fields the form shows, so that an error about one can stand next to it. */
  const shown = LINK_FIELDS.filter((field) => (field === 'domain' ? showDomain : field !== 'alias' || mode === 'create'));
  const isOption = (place: string) => place.startsWith(`${prefix}-opt-`);
  // Errors by the id of the control they are about.
  const { busy, errors, formError, submit } = useFormSubmit<string>(() => onSubmit(values), {
    placeOf: (error) => {
      // An error about an option names it (options.targets[1].url): shown on that control, whatever its code.
      const field = fieldOf(error);
      if (field?.startsWith('options') === true) return optionsControlId(prefix, field);
      const own = fieldIn(error, shown);
      return own === null ? null : `${prefix}-${own}`;
    },
    messageOf: (error, place) => (place !== null && isOption(place) ? optionMessage(error) : errorMessage(error)),
  });
  const errorOf = (field: LinkField) => errors[`${prefix}-${field}`];

  const set = (field: keyof LinkFormValues) => (event: { currentTarget: HTMLInputElement }) =>
    setValues({ ...values, [field]: event.currentTarget.value });

  return (
    <form class="form" onSubmit={submit} noValidate>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      <Field
        id={`${prefix}-url`}
        label="Target URL"
        hint="The address the short link sends people to: http:// or https://."
        error={errorOf('url')}
      >
        {(control) => (
          <input {...control} type="url" name="url" required inputMode="url" autoComplete="url" value={values.url} onInput={set('url')} />
        )}
      </Field>
      {showDomain && (
        <Field id={`${prefix}-domain`} label="Short domain" hint="The host of the short URL." error={errorOf('domain')}>
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
          error={errorOf('alias')}
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
        error={errorOf('expiresAt')}
      >
        {(control) => <input {...control} type="datetime-local" name="expiresAt" value={values.expiresAt} onInput={set('expiresAt')} />}
      </Field>
      <Field
        id={`${prefix}-title`}
        label="Title (optional)"
        hint="Up to 200 characters, for finding the link later."
        error={errorOf('title')}
      >
        {(control) => <input {...control} type="text" name="title" maxLength={200} value={values.title} onInput={set('title')} />}
      </Field>
      <Field
        id={`${prefix}-tags`}
        label="Tags (optional)"
        hint="Separated by commas, up to 10, e.g. spring, newsletter."
        error={errorOf('tags')}
      >
        {(control) => <input {...control} type="text" name="tags" autoComplete="off" value={values.tags} onInput={set('tags')} />}
      </Field>
      <LinkOptionsFields
        prefix={prefix}
        draft={values.options}
        onChange={(options) => setValues({ ...values, options })}
        errors={errors}
        open={initial.options !== NO_OPTIONS || Object.keys(errors).some(isOption)}
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
