import { useEffect, useRef } from 'preact/hooks';
import type { SPLIT_MAX } from '../../../../src/core/link-options.ts';
import type { VariantDraft } from './draft.ts';
import { OptionText } from './OptionText.tsx';
import type { OptionErrors, OptionProps } from './props.ts';

const VARIANTS_MAX = 10 satisfies typeof SPLIT_MAX;

/** A, B, C… */
const letter = (i: number) => String.fromCharCode(65 + i);

/** The A/B split: its variants and their weights, with a button to add one (two at first). */
export function SplitFields({ id, draft, errors, onChange }: OptionProps<'variants'>) {
  const { variants } = draft;
  const weights = variants.reduce((sum, v) => sum + (Number(v.weight) || 0), 0);
  const setVariant = (i: number, change: Partial<VariantDraft>) =>
    onChange({ variants: variants.map((variant, j) => (j === i ? { ...variant, ...change } : variant)) });
  // The variant just added takes the focus (its URL), after the render that makes it.
  const added = useRef<number | null>(null);
  useEffect(() => {
    if (added.current === null) return;
    document.getElementById(id(`split-${added.current}-url`))?.focus();
    added.current = null;
  }, [variants.length]);
  const add = () => {
    added.current = variants.length;
    onChange({
      variants:
        variants.length === 0
          ? [
              { url: '', weight: '50' },
              { url: '', weight: '50' },
            ]
          : [...variants, { url: '', weight: '' }],
    });
  };
  return (
    <>
      <h3 class="options-heading">A/B split</h3>
      <p class="hint">
        When no rule matched: each visitor keeps one variant. Weights are percentages that sum to 100
        {variants.length > 0 ? ` (now ${weights})` : ''}.
      </p>
      {variants.map((variant, i) => (
        <VariantFields
          key={i}
          id={(part) => id(`split-${i}-${part}`)}
          name={letter(i)}
          variant={variant}
          errors={errors}
          onChange={(change) => setVariant(i, change)}
          onRemove={() => onChange({ variants: variants.filter((_, j) => j !== i) })}
        />
      ))}
      {variants.length < VARIANTS_MAX && (
        <button type="button" onClick={add}>
          {variants.length === 0 ? 'Add an A/B split' : 'Add a variant'}
        </button>
      )}
    </>
  );
}

interface VariantFieldsProps {
  id: (part: 'url' | 'weight') => string;
  /** Its letter. */
  name: string;
  variant: VariantDraft;
  errors: OptionErrors;
  onChange: (change: Partial<VariantDraft>) => void;
  onRemove: () => void;
}

function VariantFields({ id, name, variant, errors, onChange, onRemove }: VariantFieldsProps) {
  return (
    <fieldset class="option-group option-pair">
      <legend>Variant {name}</legend>
      <OptionText id={id('url')} type="url" label="URL" value={variant.url} errors={errors} onInput={(url) => onChange({ url })} />
      <OptionText
        id={id('weight')}
        label="Weight (%)"
        inputMode="numeric"
        value={variant.weight}
        errors={errors}
        onInput={(weight) => onChange({ weight })}
      />
      <button type="button" class="button-small" onClick={onRemove}>
        Remove variant {name}
      </button>
    </fieldset>
  );
}
