import type { ComponentChildren } from 'preact';

interface CheckboxesProps {
  id: string;
  label: string;
  error: string | undefined;
  children: ComponentChildren;
}

/** A group of checkboxes with one label and one error, tied to the group. */
export function Checkboxes({ id, label, error, children }: CheckboxesProps) {
  const errorId = `${id}-error`;
  return (
    <fieldset class="checks" aria-describedby={error ? errorId : undefined} aria-invalid={error ? true : undefined}>
      <legend>{label}</legend>
      <div class="check-row">{children}</div>
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </fieldset>
  );
}
