import { useEffect, useRef } from 'preact/hooks';
import type { TARGETS_MAX } from '../../../../src/core/link-options.ts';
import { emptyRule, type RuleDraft } from './draft.ts';
import type { OptionProps } from './props.ts';
import { RuleFields } from './RuleFields.tsx';

const RULES_MAX = 20 satisfies typeof TARGETS_MAX;

/** The targeting rules, in order, with a button to add one. */
export function TargetRules({ id, draft, errors, onChange }: OptionProps<'rules'>) {
  // The rule just added takes the focus (its first field), after the render that makes it.
  const added = useRef<number | null>(null);
  useEffect(() => {
    if (added.current === null) return;
    document.getElementById(id(`targets-${added.current}-device`))?.focus();
    added.current = null;
  }, [draft.rules.length]);
  const setRule = (i: number, change: Partial<RuleDraft>) =>
    onChange({ rules: draft.rules.map((rule, j) => (j === i ? { ...rule, ...change } : rule)) });
  return (
    <>
      <h3 class="options-heading">Targeting rules</h3>
      <p class="hint">Checked in order: the first rule whose every filled condition holds sends the visitor to its URL.</p>
      {draft.rules.map((rule, i) => (
        <RuleFields
          key={i}
          id={(part) => id(`targets-${i}-${part}`)}
          index={i}
          rule={rule}
          errors={errors}
          onChange={(change) => setRule(i, change)}
          onRemove={() => onChange({ rules: draft.rules.filter((_, j) => j !== i) })}
        />
      ))}
      {draft.rules.length < RULES_MAX && (
        <button
          type="button"
          onClick={() => {
            added.current = draft.rules.length;
            onChange({ rules: [...draft.rules, emptyRule()] });
          }}
        >
          Add a rule
        </button>
      )}
    </>
  );
}
