import { OptionText } from './OptionText.tsx';
import type { OptionProps } from './props.ts';

/** Where the link sends visitors once it has expired or its click limit is used up (options.expiredUrl). */
export function ExpiredUrlField({ id, draft, errors, onChange }: OptionProps<'expiredUrl'>) {
  return (
    <OptionText
      id={id('expired')}
      label="After the end, send visitors to (optional)"
      hint="Once the link expires or its click limit is used up, visitors go here (an “offer ended” page) instead of seeing that it has expired. Such visits are not counted as clicks."
      type="url"
      value={draft.expiredUrl}
      errors={errors}
      onInput={(expiredUrl) => onChange({ expiredUrl })}
    />
  );
}
