import { Field } from '../../shared/Field.tsx';
import type { OptionProps } from './props.ts';

/** Whether the visitor's query goes on to the target: the deployment's default, yes or no. */
export function ForwardQueryField({ id, draft, errors, onChange }: OptionProps<'forwardQuery'>) {
  return (
    <Field
      id={id('forward')}
      label="Forward the visitor’s query"
      hint="Adds ?utm_source=… from the short URL to the target; the visitor’s parameters replace the target’s of the same name."
      error={errors[id('forward')]}
    >
      {(control) => (
        <select {...control} value={draft.forwardQuery} onChange={(e) => onChange({ forwardQuery: e.currentTarget.value })}>
          <option value="">Deployment default</option>
          <option value="true">Yes</option>
          <option value="false">No</option>
        </select>
      )}
    </Field>
  );
}
