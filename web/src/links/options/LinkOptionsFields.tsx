import type { JSX } from 'preact';
import type { SectionId } from '../builder/fields.ts';
import { ClickLimitField } from './ClickLimitField.tsx';
import { DeepLinkFields } from './DeepLinkFields.tsx';
import { ExpiredUrlField } from './ExpiredUrlField.tsx';
import type { OptionsDraft } from './draft.ts';
import { ForwardQueryField } from './ForwardQueryField.tsx';
import { PasswordField } from './PasswordField.tsx';
import { PreviewFields } from './PreviewFields.tsx';
import type { OptionErrors, OptionProps } from './props.ts';
import { SplitFields } from './SplitFields.tsx';
import { StatusField } from './StatusField.tsx';
import { TargetRules } from './TargetRules.tsx';

interface LinkOptionsFieldsProps {
  /** Which of the form's sections (builder/fields.ts) these are the fields of. */
  section: Exclude<SectionId, 'schedule'>;
  /** The form's id prefix: every control's id starts with it (optionsControlId). */
  prefix: string;
  draft: OptionsDraft;
  onChange: (draft: OptionsDraft) => void;
  errors: OptionErrors;
}

/** The fields of one section of a link's options (README: Link options), one component each. */
export function LinkOptionsFields({ section, prefix, draft, onChange, errors }: LinkOptionsFieldsProps) {
  const option: OptionProps<keyof OptionsDraft> = {
    id: (part) => `${prefix}-opt-${part}`,
    draft,
    errors,
    onChange: (change) => onChange({ ...draft, ...change }),
  };
  const fields: Readonly<Record<LinkOptionsFieldsProps['section'], () => JSX.Element>> = {
    protection: () => (
      <>
        <PasswordField {...option} />
        <ClickLimitField {...option} />
        <ExpiredUrlField {...option} />
      </>
    ),
    targeting: () => (
      <>
        <TargetRules {...option} />
        <SplitFields {...option} />
      </>
    ),
    preview: () => <PreviewFields {...option} />,
    apps: () => <DeepLinkFields {...option} />,
    redirect: () => (
      <>
        <StatusField {...option} />
        <ForwardQueryField {...option} />
      </>
    ),
  };
  return fields[section]();
}
