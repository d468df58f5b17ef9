import { Field } from '../../shared/Field.tsx';
import type { OptionProps } from './props.ts';
import { STATUS_LABELS, STATUSES } from './values.ts';

/** The redirect's status: the deployment's default, or one of the four. */
export function StatusField({ id, draft, errors, onChange }: OptionProps<'redirectStatus'>) {
  return (
    <Field id={id('status')} label="Redirect status" error={errors[id('status')]}>
      {(control) => (
        <select {...control} value={draft.redirectStatus} onChange={(e) => onChange({ redirectStatus: e.currentTarget.value })}>
          <option value="">Deployment default (usually 302)</option>
          {STATUSES.map((status) => (
            <option key={status} value={String(status)}>
              {STATUS_LABELS[status]}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
