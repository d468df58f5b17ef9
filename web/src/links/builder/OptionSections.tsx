import { Field } from '../../shared/Field.tsx';
import { formatDateTime } from '../../shared/format.ts';
import { LinkOptionsFields } from '../options/LinkOptionsFields.tsx';
import type { OptionErrors } from '../options/props.ts';
import { SECTION_TITLES, SECTIONS, type SectionId } from './fields.ts';
import { Section } from './Section.tsx';
import { sectionSummary, sectionUsed } from './summaries.ts';
import type { LinkFormValues } from './values.ts';

interface OptionSectionsProps {
  prefix: string;
  values: LinkFormValues;
  /** Errors by the id of the control they are about (the whole form's). */
  errors: OptionErrors;
  open: Readonly<Record<SectionId, boolean>>;
  onToggle: (section: SectionId, open: boolean) => void;
  /** A date of the schedule typed. */
  onDate: (field: 'startsAt' | 'expiresAt', value: string) => void;
  onOptions: (options: LinkFormValues['options']) => void;
}

/** A link's options in their named sections (LinkForm.tsx), each saying what is set in it: the schedule, then the rest. */
export function OptionSections({ prefix, values, errors, open, onToggle, onDate, onOptions }: OptionSectionsProps) {
  const date = (field: 'startsAt' | 'expiresAt') => (event: { currentTarget: HTMLInputElement }) =>
    onDate(field, event.currentTarget.value);
  return (
    <>
      {SECTIONS.map((section) => (
        <Section
          key={section}
          id={`${prefix}-section-${section}`}
          title={SECTION_TITLES[section]}
          summary={sectionSummary(section, values, format)}
          used={sectionUsed(section, values)}
          open={open[section]}
          onToggle={(isOpen) => onToggle(section, isOpen)}
        >
          {section === 'schedule' ? (
            <div class="option-pair">
              <Field
                id={`${prefix}-startsAt`}
                label="Starts (optional)"
                hint="Before this, the link answers as not yet active."
                error={errors[`${prefix}-startsAt`]}
              >
                {(control) => (
                  <input {...control} type="datetime-local" name="startsAt" value={values.startsAt} onInput={date('startsAt')} />
                )}
              </Field>
              <Field
                id={`${prefix}-expiresAt`}
                label="Expires (optional)"
                hint={`In your time zone (${timeZone()}). Empty: the link works for good.`}
                error={errors[`${prefix}-expiresAt`]}
              >
                {(control) => (
                  <input {...control} type="datetime-local" name="expiresAt" value={values.expiresAt} onInput={date('expiresAt')} />
                )}
              </Field>
            </div>
          ) : (
            <LinkOptionsFields section={section} prefix={prefix} draft={values.options} onChange={onOptions} errors={errors} />
          )}
        </Section>
      ))}
    </>
  );
}

/** A date in a section's summary, as the reader's locale writes it. */
function format(date: Date): string {
  return formatDateTime(date.toISOString());
}

function timeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
