import type { ComponentChildren } from 'preact';
import { emptyRule, type OptionsDraft, type RuleDraft, type VariantDraft } from './draft.ts';
import { DEVICE_LABELS, DEVICES, STATUS_LABELS, STATUSES } from './values.ts';
import { Field } from '../../shared/Field.tsx';

interface LinkOptionsFieldsProps {
  /** The form's id prefix: every control's id starts with it (optionsControlId). */
  prefix: string;
  draft: OptionsDraft;
  onChange: (draft: OptionsDraft) => void;
  /** Errors by control id. */
  errors: Readonly<Partial<Record<string, string>>>;
  /** Open from the start: a link that has options, or an error in them. */
  open: boolean;
}

/**
 * A link's redirect options (README: Link options): status, query forwarding, targeting rules and
 * an A/B split, in a disclosure that stays closed for the plain link most people make.
 */
export function LinkOptionsFields({ prefix, draft, onChange, errors, open }: LinkOptionsFieldsProps) {
  const id = (part: string) => `${prefix}-opt-${part}`;
  const setRule = (i: number, change: Partial<RuleDraft>) =>
    onChange({ ...draft, rules: draft.rules.map((rule, j) => (j === i ? { ...rule, ...change } : rule)) });
  const setVariant = (i: number, change: Partial<VariantDraft>) =>
    onChange({ ...draft, variants: draft.variants.map((variant, j) => (j === i ? { ...variant, ...change } : variant)) });
  const weights = draft.variants.reduce((sum, v) => sum + (Number(v.weight) || 0), 0);

  return (
    <details class="options" open={open}>
      <summary>Redirect options</summary>
      <div class="options-body">
        <Field id={id('status')} label="Redirect status" error={errors[id('status')]}>
          {(control) => (
            <select
              {...control}
              value={draft.redirectStatus}
              onChange={(e) => onChange({ ...draft, redirectStatus: e.currentTarget.value })}
            >
              <option value="">Deployment default (usually 302)</option>
              {STATUSES.map((status) => (
                <option key={status} value={String(status)}>
                  {STATUS_LABELS[status]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          id={id('forward')}
          label="Forward the visitor’s query"
          hint="Adds ?utm_source=… from the short URL to the target; the visitor’s parameters replace the target’s of the same name."
          error={errors[id('forward')]}
        >
          {(control) => (
            <select {...control} value={draft.forwardQuery} onChange={(e) => onChange({ ...draft, forwardQuery: e.currentTarget.value })}>
              <option value="">Deployment default</option>
              <option value="true">Yes</option>
              <option value="false">No</option>
            </select>
          )}
        </Field>

        <h3 class="options-heading">Targeting rules</h3>
        <p class="hint">Checked in order: the first rule whose every filled condition holds sends the visitor to its URL.</p>
        {draft.rules.map((rule, i) => (
          <fieldset class="option-group" key={i}>
            <legend>Rule {i + 1}</legend>
            <Checkboxes id={id(`targets-${i}-device`)} label="Devices" error={errors[id(`targets-${i}-device`)]}>
              {DEVICES.map((value, k) => (
                <label class="check" key={value}>
                  <input
                    type="checkbox"
                    id={k === 0 ? id(`targets-${i}-device`) : undefined}
                    checked={rule.devices.includes(value)}
                    onChange={(e) =>
                      setRule(i, {
                        devices: e.currentTarget.checked ? [...rule.devices, value] : rule.devices.filter((d) => d !== value),
                      })
                    }
                  />{' '}
                  {DEVICE_LABELS[value]}
                </label>
              ))}
            </Checkboxes>
            <Text
              id={id(`targets-${i}-country`)}
              label="Countries"
              hint="Codes such as DE, AT, CH."
              value={rule.countries}
              errors={errors}
              onInput={(countries) => setRule(i, { countries })}
            />
            <Text
              id={id(`targets-${i}-language`)}
              label="Preferred languages"
              hint="Such as de, pt-BR."
              value={rule.languages}
              errors={errors}
              onInput={(languages) => setRule(i, { languages })}
            />
            <div class="option-pair">
              <Text
                id={id(`targets-${i}-queryName`)}
                label="Query parameter"
                value={rule.queryName}
                errors={errors}
                onInput={(queryName) => setRule(i, { queryName })}
              />
              <Text
                id={id(`targets-${i}-queryValue`)}
                label="equal to (optional)"
                value={rule.queryValue}
                errors={errors}
                onInput={(queryValue) => setRule(i, { queryValue })}
              />
            </div>
            <div class="option-pair">
              <Text
                id={id(`targets-${i}-from`)}
                type="datetime-local"
                label="From"
                value={rule.from}
                errors={errors}
                onInput={(from) => setRule(i, { from })}
              />
              <Text
                id={id(`targets-${i}-until`)}
                type="datetime-local"
                label="Until"
                value={rule.until}
                errors={errors}
                onInput={(until) => setRule(i, { until })}
              />
            </div>
            <Text
              id={id(`targets-${i}-url`)}
              type="url"
              label="Send them to"
              value={rule.url}
              errors={errors}
              onInput={(url) => setRule(i, { url })}
            />
            <button type="button" class="button-small" onClick={() => onChange({ ...draft, rules: draft.rules.filter((_, j) => j !== i) })}>
              Remove rule {i + 1}
            </button>
          </fieldset>
        ))}
        {draft.rules.length < 20 && (
          <button type="button" onClick={() => onChange({ ...draft, rules: [...draft.rules, emptyRule()] })}>
            Add a rule
          </button>
        )}

        <h3 class="options-heading">A/B split</h3>
        <p class="hint">
          When no rule matched: each visitor keeps one variant. Weights are percentages that sum to 100
          {draft.variants.length > 0 ? ` (now ${weights})` : ''}.
        </p>
        {draft.variants.map((variant, i) => (
          <fieldset class="option-group option-pair" key={i}>
            <legend>Variant {String.fromCharCode(65 + i)}</legend>
            <Text
              id={id(`split-${i}-url`)}
              type="url"
              label="URL"
              value={variant.url}
              errors={errors}
              onInput={(url) => setVariant(i, { url })}
            />
            <Text
              id={id(`split-${i}-weight`)}
              label="Weight (%)"
              inputMode="numeric"
              value={variant.weight}
              errors={errors}
              onInput={(weight) => setVariant(i, { weight })}
            />
            <button
              type="button"
              class="button-small"
              onClick={() => onChange({ ...draft, variants: draft.variants.filter((_, j) => j !== i) })}
            >
              Remove variant {String.fromCharCode(65 + i)}
            </button>
          </fieldset>
        ))}
        {draft.variants.length < 10 && (
          <button
            type="button"
            onClick={() =>
              onChange({
                ...draft,
                variants:
                  draft.variants.length === 0
                    ? [
                        { url: '', weight: '50' },
                        { url: '', weight: '50' },
                      ]
                    : [...draft.variants, { url: '', weight: '' }],
              })
            }
          >
            {draft.variants.length === 0 ? 'Add an A/B split' : 'Add a variant'}
          </button>
        )}

        <h3 class="options-heading">Social preview</h3>
        <p class="hint">What chat apps and social networks show for the short link: their crawlers get these, people the redirect.</p>
        <Text
          id={id('preview-title')}
          label="Preview title"
          value={draft.previewTitle}
          errors={errors}
          onInput={(previewTitle) => onChange({ ...draft, previewTitle })}
        />
        <Text
          id={id('preview-description')}
          label="Preview description"
          value={draft.previewDescription}
          errors={errors}
          onInput={(previewDescription) => onChange({ ...draft, previewDescription })}
        />
        <Text
          id={id('preview-image')}
          type="url"
          label="Preview image URL"
          value={draft.previewImage}
          errors={errors}
          onInput={(previewImage) => onChange({ ...draft, previewImage })}
        />

        <h3 class="options-heading">Click limit</h3>
        <Text
          id={id('limit')}
          label="Most redirects"
          hint="After this many clicks, on every server, the link answers “410 Gone” (or the domain’s expired page). Leave empty for no limit."
          inputMode="numeric"
          value={draft.clickLimit}
          errors={errors}
          onInput={(clickLimit) => onChange({ ...draft, clickLimit })}
        />

        <h3 class="options-heading">Password protection</h3>
        <Text
          id={id('password')}
          type="password"
          label={draft.hasPassword ? 'New password' : 'Password'}
          hint={
            draft.hasPassword
              ? 'The link has a password. Leave this empty to keep it, or type a new one.'
              : 'Visitors must type it before they are sent on: 4 to 128 characters.'
          }
          value={draft.password}
          errors={errors}
          onInput={(password) => onChange({ ...draft, password })}
        />
        {draft.hasPassword && (
          <label class="check">
            <input
              type="checkbox"
              checked={draft.removePassword}
              onChange={(e) => onChange({ ...draft, removePassword: e.currentTarget.checked })}
            />{' '}
            Remove the password
          </label>
        )}

        <h3 class="options-heading">Open in the app</h3>
        <p class="hint">Phones open your app (myapp://path, or an https universal or app link); without the app, the web target.</p>
        <Text
          id={id('app-ios')}
          label="iOS app URL"
          value={draft.appIos}
          errors={errors}
          onInput={(appIos) => onChange({ ...draft, appIos })}
        />
        <Text
          id={id('app-android')}
          label="Android app URL"
          value={draft.appAndroid}
          errors={errors}
          onInput={(appAndroid) => onChange({ ...draft, appAndroid })}
        />
      </div>
    </details>
  );
}

interface TextProps {
  id: string;
  label: string;
  hint?: string;
  value: string;
  type?: 'text' | 'url' | 'datetime-local' | 'password';
  inputMode?: 'numeric';
  errors: Readonly<Partial<Record<string, string>>>;
  onInput: (value: string) => void;
}

function Text({ id, label, hint, value, type = 'text', inputMode, errors, onInput }: TextProps) {
  // Preact's types pair each input type with its own attributes: one element for the three here.
  const inputType: string = type;
  return (
    <Field id={id} label={label} hint={hint} error={errors[id]}>
      {(control) => (
        <input
          {...control}
          type={inputType as 'text'}
          autoComplete={type === 'password' ? 'new-password' : 'off'}
          spellcheck={false}
          inputMode={inputMode}
          value={value}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

/** A group of checkboxes with one label and one error, tied to the group. */
function Checkboxes({ id, label, error, children }: { id: string; label: string; error: string | undefined; children: ComponentChildren }) {
  const errorId = `${id}-error`;
  return (
    <fieldset class="checks" aria-describedby={error ? errorId : undefined} aria-invalid={error ? true : undefined}>
      <legend>{label}</legend>
      <div class="check-row">{children}</div>
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </fieldset>
  );
}
