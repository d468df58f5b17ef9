import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../api/errors.ts';
import type { Domain } from '../domains/api.ts';
import { DomainSelect } from '../domains/DomainSelect.tsx';
import { Field } from '../shared/Field.tsx';
import { FormButtons } from '../shared/FormButtons.tsx';
import { useFormSubmit } from '../shared/use-form-submit.ts';
import { checkLink } from './builder/checks.ts';
import { errorField, errorWords } from './builder/error-words.ts';
import { ErrorSummary, type ShownError } from './builder/ErrorSummary.tsx';
import { controlOf, sectionOf, type SectionId } from './builder/fields.ts';
import { normaliseUrl } from './builder/normalise-url.ts';
import { AliasField, TagsField } from './builder/LinkFields.tsx';
import { OptionSections } from './builder/OptionSections.tsx';
import type { LinkFormValues } from './builder/values.ts';
import { TITLE_MAX } from './builder/limits.ts';

export type { LinkFormValues };

/** What the page beside the form shows of the link as it is typed. */
export interface LinkPreview {
  values: LinkFormValues;
  /** The short link's host. */
  host: string;
  /** `https://host/alias`; null while the code is to be chosen at random. */
  shortUrl: string | null;
}

interface LinkFormProps {
  /** The domain and alias fields exist only when creating: a link's domain and code never change. */
  mode: 'create' | 'edit';
  initial: LinkFormValues;
  /** The workspace's domains to choose from, default first; no choice is shown for the default domain alone. */
  domains?: readonly Domain[];
  /** The host a create that names no domain goes on (use-domains.ts); the deployment's when not given. */
  defaultHost?: string | undefined;
  submitLabel: string;
  busyLabel: string;
  /** Sends the values (the target as read: https:// assumed); an ApiError it throws is shown on the field it is about. */
  onSubmit: (values: LinkFormValues) => Promise<void>;
  onCancel?: () => void;
  /** Shown beside the form (a preview), from the values as typed. */
  aside?: (preview: LinkPreview) => ComponentChildren;
}

const NO_SECTION_OPEN: Readonly<Record<SectionId, boolean>> = {
  schedule: false,
  protection: false,
  targeting: false,
  preview: false,
  apps: false,
  redirect: false,
};

/**
 * The fields of a link, for creating one or editing it: its own fields, then its options in named sections that say
 * what is set in them. The browser checks formats and ranges first (builder/checks.ts); the API checks everything
 * again, and its errors land on their fields too. Either way the first invalid field's section opens and the field
 * takes the focus, and a summary beside the submit button lists every problem.
 */
export function LinkForm({ mode, initial, domains = [], defaultHost, submitLabel, busyLabel, onSubmit, onCancel, aside }: LinkFormProps) {
  const [values, setValues] = useState(initial);
  const [open, setOpen] = useState(NO_SECTION_OPEN);
  const [focusTo, setFocusTo] = useState<string | null>(null);
  const prefix = `link-${mode}`;
  const showDomain = mode === 'create' && domains.length > 1;
  const origin = originOf(values.domain, defaultHost ?? domains.find((d) => d.isDefault)?.host ?? location.hostname);
  const host = origin.replace(/^[a-z]+:\/\//, '');
  const typedUrl = normaliseUrl(values.url);

  // A focus asked for outside a submission (the error summary's links, a picked tag), once its render is done.
  useEffect(() => {
    if (focusTo === null) return;
    document.getElementById(focusTo)?.focus();
    setFocusTo(null);
  }, [focusTo]);

  /** Opens the sections that hold these controls, in the render that shows their errors. */
  const openSectionsOf = (controlIds: readonly string[]) => {
    const opened = { ...open };
    for (const controlId of controlIds) {
      const section = sectionOf(prefix, controlId);
      if (section !== null) opened[section] = true;
    }
    setOpen(opened);
  };

  // Errors by the id of the control they are about; a field this form does not show (the domain with one domain) is
  // the whole form's.
  const { busy, errors, formError, submit, clear } = useFormSubmit<string>(() => onSubmit({ ...values, url: typedUrl.url }), {
    check: () => {
      const problems = checkLink(values, mode, Date.now(), initial);
      if (problems.length === 0) return null;
      const shown: Record<string, string> = {};
      for (const { field, message } of problems) shown[controlOf(prefix, field)] ??= message;
      openSectionsOf(Object.keys(shown));
      return shown;
    },
    placeOf: (error) => {
      const field = errorField(error);
      const controlId = field === null ? null : controlOf(prefix, field);
      if (controlId === null || document.getElementById(controlId) === null) return null;
      openSectionsOf([controlId]);
      return controlId;
    },
    messageOf: (error) => {
      const field = errorField(error);
      return field === null ? errorMessage(error) : errorWords(error, field);
    },
  });

  const goTo = (controlId: string) => {
    openSectionsOf([controlId]);
    setFocusTo(controlId);
  };

  const change = (field: Exclude<keyof LinkFormValues, 'options'>, value: string) => {
    setValues({ ...values, [field]: value });
    clear(`${prefix}-${field}`);
  };
  const input = (field: Exclude<keyof LinkFormValues, 'options'>) => (event: { currentTarget: HTMLInputElement }) =>
    change(field, event.currentTarget.value);
  const errorOf = (field: string) => errors[`${prefix}-${field}`];

  const shownErrors: ShownError[] = [
    ...Object.entries(errors).map(([controlId, message = '']) => ({ controlId, label: labelOf(controlId), message })),
    ...(formError === null ? [] : [{ controlId: null, label: '', message: formError }]),
  ];

  const form = (
    <form class="form builder" onSubmit={submit} noValidate>
      <Field
        id={`${prefix}-url`}
        label="Target URL"
        hint={
          typedUrl.assumed ? (
            <>
              Read as <strong class="break">{typedUrl.url}</strong>: https:// is assumed.
            </>
          ) : (
            'The address the short link sends people to, such as example.com/page.'
          )
        }
        error={errorOf('url')}
      >
        {(control) => (
          <input {...control} type="url" name="url" required inputMode="url" autoComplete="url" value={values.url} onInput={input('url')} />
        )}
      </Field>
      {showDomain && (
        <Field id={`${prefix}-domain`} label="Short domain" hint="The host of the short URL." error={errorOf('domain')}>
          {(control) => (
            <DomainSelect
              control={control}
              name="domain"
              domains={domains}
              defaultHost={defaultHost}
              value={values.domain}
              onChange={(domain) => change('domain', domain)}
            />
          )}
        </Field>
      )}
      {mode === 'create' && (
        <AliasField
          prefix={prefix}
          value={values.alias}
          domain={values.domain}
          host={host}
          error={errorOf('alias')}
          onChange={(alias) => change('alias', alias)}
        />
      )}
      <Field
        id={`${prefix}-title`}
        label="Title (optional)"
        hint={`Up to ${TITLE_MAX} characters, for finding the link later.`}
        error={errorOf('title')}
      >
        {(control) => <input {...control} type="text" name="title" value={values.title} onInput={input('title')} />}
      </Field>
      <TagsField
        prefix={prefix}
        value={values.tags}
        error={errorOf('tags')}
        onChange={(tags) => change('tags', tags)}
        onPicked={() => setFocusTo(`${prefix}-tags`)}
      />
      <h2 class="builder-options-heading">Options</h2>
      <OptionSections
        prefix={prefix}
        values={values}
        errors={errors}
        open={open}
        onToggle={(section, isOpen) => isOpen !== open[section] && setOpen({ ...open, [section]: isOpen })}
        onDate={change}
        onOptions={(options) => setValues({ ...values, options })}
      />
      <div class="builder-submit">
        <ErrorSummary errors={shownErrors} onGo={goTo} />
        <FormButtons busy={busy} submitLabel={submitLabel} busyLabel={busyLabel} onCancel={onCancel} />
      </div>
    </form>
  );

  if (aside === undefined) return form;
  return (
    <div class="builder-layout">
      <div class="builder-main">{form}</div>
      {aside({
        values,
        host,
        shortUrl: mode === 'create' && values.alias.trim() !== '' ? `${origin}/${values.alias.trim()}` : null,
      })}
    </div>
  );
}

/** The label of a control as people see it, with its rule's or variant's name ("Rule 2: Countries"). */
function labelOf(controlId: string): string {
  const control = document.getElementById(controlId);
  const label = control === null ? null : document.querySelector(`label[for="${CSS.escape(controlId)}"]`);
  const group = control?.closest('fieldset.option-group')?.querySelector('legend')?.textContent;
  const own = control?.closest('fieldset.checks')?.querySelector('legend')?.textContent ?? label?.textContent ?? 'This field';
  return group === undefined || group === null ? own : `${group}: ${own}`;
}

/**
 * Where the short links of a domain start: the default domain's are BASE_URL's, which is this page's origin when the
 * dashboard is served on it (its port included); a branded domain's are on its host, with BASE_URL's scheme.
 */
function originOf(domain: string, defaultHost: string): string {
  if (domain !== '') return `${location.protocol}//${domain}`;
  return location.hostname === defaultHost ? location.origin : `${location.protocol}//${defaultHost}`;
}
