import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../api/errors.ts';
import { useApp } from '../auth/context.ts';
import type { Domain } from '../domains/api.ts';
import { DomainSelect } from '../domains/DomainSelect.tsx';
import { Field } from '../shared/Field.tsx';
import { FormButtons } from '../shared/FormButtons.tsx';
import { formatDateTime } from '../shared/format.ts';
import { useLoad } from '../shared/use-load.ts';
import { listTags } from './api.ts';
import { checkLink } from './builder/checks.ts';
import { errorField, errorWords } from './builder/error-words.ts';
import { ErrorSummary, type ShownError } from './builder/ErrorSummary.tsx';
import { controlOf, SECTION_TITLES, SECTIONS, sectionOf, type SectionId } from './builder/fields.ts';
import { normaliseUrl } from './builder/normalise-url.ts';
import { Section } from './builder/Section.tsx';
import { ShortLinkPreview } from './builder/ShortLinkPreview.tsx';
import { sectionSummary, sectionUsed } from './builder/summaries.ts';
import { TagSuggestions } from './builder/TagSuggestions.tsx';
import { useAliasAvailability } from './builder/use-availability.ts';
import type { LinkFormValues } from './builder/values.ts';
import { LinkOptionsFields } from './options/LinkOptionsFields.tsx';
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

/** Errors by the id of the control they are about. */
type Errors = Readonly<Record<string, string>>;

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
  const { api } = useApp();
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState(NO_SECTION_OPEN);
  const [focusTo, setFocusTo] = useState<string | null>(null);
  const prefix = `link-${mode}`;
  const showDomain = mode === 'create' && domains.length > 1;
  const { data: knownTags } = useLoad((signal) => listTags(api, signal), 'tags');
  const origin = originOf(values.domain, defaultHost ?? domains.find((d) => d.isDefault)?.host ?? location.hostname);
  const host = origin.replace(/^[a-z]+:\/\//, '');
  const availability = useAliasAvailability(mode === 'create' ? values.alias : '', values.domain);
  const typedUrl = normaliseUrl(values.url);

  // Once the render that shows an error (and opens its section) is done: the focus, so the message is read with it.
  useEffect(() => {
    if (focusTo === null) return;
    document.getElementById(focusTo)?.focus();
    setFocusTo(null);
  }, [focusTo]);

  const show = (shown: { controlId: string; message: string }[]) => {
    const next: Record<string, string> = {};
    const opened = { ...open };
    for (const { controlId, message } of shown) {
      next[controlId] ??= message;
      const section = sectionOf(prefix, controlId);
      if (section !== null) opened[section] = true;
    }
    setErrors(next);
    setOpen(opened);
    setFocusTo(shown[0]?.controlId ?? null);
  };

  const goTo = (controlId: string) => {
    const section = sectionOf(prefix, controlId);
    if (section !== null) setOpen({ ...open, [section]: true });
    setFocusTo(controlId);
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setFormError(null);
    const problems = checkLink(values, mode, Date.now(), initial);
    // A field this form does not show (the domain with one domain) is the whole form's.
    if (problems.length > 0) {
      show(problems.map(({ field, message }) => ({ controlId: controlOf(prefix, field), message })));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await onSubmit({ ...values, url: typedUrl.url });
    } catch (error) {
      const field = errorField(error);
      const controlId = field === null ? null : controlOf(prefix, field);
      if (controlId !== null && document.getElementById(controlId) !== null) show([{ controlId, message: errorWords(error, field) }]);
      else setFormError(field === null ? errorMessage(error) : errorWords(error, field));
    } finally {
      setBusy(false);
    }
  };

  const change = (field: Exclude<keyof LinkFormValues, 'options'>, value: string) => {
    setValues({ ...values, [field]: value });
    clearError(`${prefix}-${field}`);
  };
  const clearError = (controlId: string) => {
    if (errors[controlId] === undefined) return;
    const rest = { ...errors };
    delete rest[controlId];
    setErrors(rest);
  };
  const input = (field: Exclude<keyof LinkFormValues, 'options'>) => (event: { currentTarget: HTMLInputElement }) =>
    change(field, event.currentTarget.value);
  const errorOf = (field: string) => errors[`${prefix}-${field}`];

  const shownErrors: ShownError[] = [
    ...Object.entries(errors).map(([controlId, message]) => ({ controlId, label: labelOf(controlId), message })),
    ...(formError === null ? [] : [{ controlId: null, label: '', message: formError }]),
  ];

  const form = (
    <form class="form builder" onSubmit={(event) => void submit(event)} noValidate>
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
        <>
          <Field
            id={`${prefix}-alias`}
            label="Custom alias (optional)"
            hint="3–64 letters, digits, - or _. Leave empty for a random code."
            error={errorOf('alias')}
          >
            {(control) => (
              <input
                {...control}
                aria-describedby={[control['aria-describedby'], `${prefix}-short-preview`].filter(Boolean).join(' ')}
                type="text"
                name="alias"
                autoComplete="off"
                autoCapitalize="off"
                spellcheck={false}
                value={values.alias}
                onInput={input('alias')}
              />
            )}
          </Field>
          <ShortLinkPreview id={`${prefix}-short-preview`} host={host} alias={values.alias} availability={availability} />
        </>
      )}
      <Field
        id={`${prefix}-title`}
        label="Title (optional)"
        hint={`Up to ${TITLE_MAX} characters, for finding the link later.`}
        error={errorOf('title')}
      >
        {(control) => <input {...control} type="text" name="title" value={values.title} onInput={input('title')} />}
      </Field>
      <Field
        id={`${prefix}-tags`}
        label="Tags (optional)"
        hint="Separated by commas, up to 10, e.g. spring, newsletter."
        error={errorOf('tags')}
      >
        {(control) => <input {...control} type="text" name="tags" autoComplete="off" value={values.tags} onInput={input('tags')} />}
      </Field>
      <TagSuggestions
        typed={values.tags}
        known={knownTags ?? []}
        onPick={(tags) => {
          change('tags', tags);
          setFocusTo(`${prefix}-tags`);
        }}
      />
      <h2 class="builder-options-heading">Options</h2>
      {SECTIONS.map((section) => (
        <Section
          key={section}
          id={`${prefix}-section-${section}`}
          title={SECTION_TITLES[section]}
          summary={sectionSummary(section, values, format)}
          used={sectionUsed(section, values)}
          open={open[section]}
          onToggle={(isOpen) => isOpen !== open[section] && setOpen({ ...open, [section]: isOpen })}
        >
          {section === 'schedule' ? (
            <div class="option-pair">
              <Field
                id={`${prefix}-startsAt`}
                label="Starts (optional)"
                hint="Before this, the link answers as not yet active."
                error={errorOf('startsAt')}
              >
                {(control) => (
                  <input {...control} type="datetime-local" name="startsAt" value={values.startsAt} onInput={input('startsAt')} />
                )}
              </Field>
              <Field
                id={`${prefix}-expiresAt`}
                label="Expires (optional)"
                hint={`In your time zone (${timeZone()}). Empty: the link works for good.`}
                error={errorOf('expiresAt')}
              >
                {(control) => (
                  <input {...control} type="datetime-local" name="expiresAt" value={values.expiresAt} onInput={input('expiresAt')} />
                )}
              </Field>
            </div>
          ) : (
            <LinkOptionsFields
              section={section}
              prefix={prefix}
              draft={values.options}
              onChange={(options) => setValues({ ...values, options })}
              errors={errors}
            />
          )}
        </Section>
      ))}
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

/** A date in a section's summary, as the reader's locale writes it. */
function format(date: Date): string {
  return formatDateTime(date.toISOString());
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

function timeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
