import { ClickLimitField } from './ClickLimitField.tsx';
import { DeepLinkFields } from './DeepLinkFields.tsx';
import type { OptionsDraft } from './draft.ts';
import { ForwardQueryField } from './ForwardQueryField.tsx';
import { PasswordField } from './PasswordField.tsx';
import { PreviewFields } from './PreviewFields.tsx';
import type { OptionErrors, OptionProps } from './props.ts';
import { SplitFields } from './SplitFields.tsx';
import { StatusField } from './StatusField.tsx';
import { TargetRules } from './TargetRules.tsx';

interface LinkOptionsFieldsProps {
  /** The form's id prefix: every control's id starts with it (optionsControlId). */
  prefix: string;
  draft: OptionsDraft;
  onChange: (draft: OptionsDraft) => void;
  errors: OptionErrors;
  /** Open from the start: a link that has options, or an error in them. */
  open: boolean;
}

/**
 * A link's redirect options (README: Link options), one component each, in a disclosure that stays closed for the
 * plain link most people make.
 */
export function LinkOptionsFields({ prefix, draft, onChange, errors, open }: LinkOptionsFieldsProps) {
  const option: OptionProps<keyof OptionsDraft> = {
    id: (part) => `${prefix}-opt-${part}`,
    draft,
    errors,
    onChange: (change) => onChange({ ...draft, ...change }),
  };
  return (
    <details class="options" open={open}>
      <summary>Redirect options</summary>
      <div class="options-body">
        <StatusField {...option} />
        <ForwardQueryField {...option} />
        <TargetRules {...option} />
        <SplitFields {...option} />
        <PreviewFields {...option} />
        <ClickLimitField {...option} />
        <PasswordField {...option} />
        <DeepLinkFields {...option} />
      </div>
    </details>
  );
}
