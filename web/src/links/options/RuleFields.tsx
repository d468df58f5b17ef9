import { Checkboxes } from './Checkboxes.tsx';
import type { RuleDraft } from './draft.ts';
import { OptionText } from './OptionText.tsx';
import type { OptionErrors } from './props.ts';
import { DEVICE_LABELS, DEVICES } from './values.ts';

interface RuleFieldsProps {
  /** The id of one of the rule's controls, by its part (`country` is `…-opt-targets-<i>-country`). */
  id: (part: string) => string;
  /** Its place in the list, from 0. */
  index: number;
  rule: RuleDraft;
  errors: OptionErrors;
  onChange: (change: Partial<RuleDraft>) => void;
  onRemove: () => void;
}

/** One targeting rule: the conditions on the visitor (each filled one must hold) and where it sends them. */
export function RuleFields({ id, index, rule, errors, onChange, onRemove }: RuleFieldsProps) {
  return (
    <fieldset class="option-group">
      <legend>Rule {index + 1}</legend>
      <Checkboxes id={id('device')} label="Devices" error={errors[id('device')]}>
        {DEVICES.map((value, k) => (
          <label class="check" key={value}>
            <input
              type="checkbox"
              id={k === 0 ? id('device') : undefined}
              checked={rule.devices.includes(value)}
              onChange={(e) =>
                onChange({ devices: e.currentTarget.checked ? [...rule.devices, value] : rule.devices.filter((d) => d !== value) })
              }
            />{' '}
            {DEVICE_LABELS[value]}
          </label>
        ))}
      </Checkboxes>
      <OptionText
        id={id('country')}
        label="Countries"
        hint="Codes such as DE, AT, CH."
        value={rule.countries}
        errors={errors}
        onInput={(countries) => onChange({ countries })}
      />
      <OptionText
        id={id('language')}
        label="Preferred languages"
        hint="Such as de, pt-BR."
        value={rule.languages}
        errors={errors}
        onInput={(languages) => onChange({ languages })}
      />
      <div class="option-pair">
        <OptionText
          id={id('queryName')}
          label="Query parameter"
          value={rule.queryName}
          errors={errors}
          onInput={(queryName) => onChange({ queryName })}
        />
        <OptionText
          id={id('queryValue')}
          label="equal to (optional)"
          value={rule.queryValue}
          errors={errors}
          onInput={(queryValue) => onChange({ queryValue })}
        />
      </div>
      <div class="option-pair">
        <OptionText
          id={id('from')}
          type="datetime-local"
          label="From"
          value={rule.from}
          errors={errors}
          onInput={(from) => onChange({ from })}
        />
        <OptionText
          id={id('until')}
          type="datetime-local"
          label="Until"
          value={rule.until}
          errors={errors}
          onInput={(until) => onChange({ until })}
        />
      </div>
      <OptionText id={id('url')} type="url" label="Send them to" value={rule.url} errors={errors} onInput={(url) => onChange({ url })} />
      <button type="button" class="button-small" onClick={onRemove}>
        Remove rule {index + 1}
      </button>
    </fieldset>
  );
}
