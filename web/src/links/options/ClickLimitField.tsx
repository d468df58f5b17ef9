import { OptionText } from './OptionText.tsx';
import type { OptionProps } from './props.ts';

/** The most redirects the link gives. */
export function ClickLimitField({ id, draft, errors, onChange }: OptionProps<'clickLimit'>) {
  return (
    <>
      <h3 class="options-heading">Click limit</h3>
      <OptionText
        id={id('limit')}
        label="Most redirects"
        hint="After this many clicks, on every server, the link answers “410 Gone” (or the domain’s expired page). Leave empty for no limit."
        inputMode="numeric"
        value={draft.clickLimit}
        errors={errors}
        onInput={(clickLimit) => onChange({ clickLimit })}
      />
    </>
  );
}
