import type { OptionsDraft } from './draft.ts';

/** Errors of the options, by the id of the control they are about (optionsControlId). */
export type OptionErrors = Readonly<Partial<Record<string, string>>>;

/** What each option's fields take: the parts of the draft they show, and how they change them. */
export interface OptionProps<K extends keyof OptionsDraft> {
  /** The id of one of the options' controls: `<the form's prefix>-opt-<part>`, as optionsControlId names it. */
  id: (part: string) => string;
  draft: Pick<OptionsDraft, K>;
  errors: OptionErrors;
  onChange: (change: Partial<Pick<OptionsDraft, K>>) => void;
}
