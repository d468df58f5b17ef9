import { CLICK_LIMIT_MAX } from '../builder/limits.ts';
import { OptionText } from './OptionText.tsx';
import type { OptionProps } from './props.ts';

/** The most redirects the link gives. */
export function ClickLimitField({ id, draft, errors, onChange }: OptionProps<'clickLimit'>) {
  return (
    <OptionText
      id={id('limit')}
      label="Click limit"
      hint={`After this many clicks the link stops working (visitors see that it has expired). A whole number from 1 to ${CLICK_LIMIT_MAX.toLocaleString('en-US')}; empty for no limit.`}
      inputMode="numeric"
      value={draft.clickLimit}
      errors={errors}
      onInput={(clickLimit) => onChange({ clickLimit })}
    />
  );
}
