import type { ComponentChildren } from 'preact';

/** The attributes that tie a control to its label, hint and error. */
export interface ControlProps {
  id: string;
  'aria-invalid'?: true;
  'aria-describedby'?: string;
}

interface FieldProps {
  id: string;
  label: string;
  hint?: ComponentChildren;
  error?: string | null | undefined;
  /** Say the error as soon as it appears (for a one-field form, where focus does not move to it). */
  live?: boolean;
  /** Renders the control with the props that connect it to the label, hint and error. */
  children: (control: ControlProps) => ComponentChildren;
}

/** A labelled form control with an optional hint and an error message tied to it. */
export function Field({ id, label, hint, error, live = false, children }: FieldProps) {
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint !== undefined ? hintId : null, error ? errorId : null].filter((x) => x !== null).join(' ');
  const control: ControlProps = { id };
  if (error) control['aria-invalid'] = true;
  if (describedBy !== '') control['aria-describedby'] = describedBy;
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      {hint !== undefined && (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      )}
      {children(control)}
      {error && (
        <p class="field-error" id={errorId} role={live ? 'alert' : undefined}>
          {error}
        </p>
      )}
    </div>
  );
}

/** An error for the page or a part of it; with `onRetry`, a "Try again" button after it. */
export function ErrorMessage({ children, onRetry }: { children: ComponentChildren; onRetry?: () => void }) {
  return (
    <div class="message message-error" role="alert">
      {onRetry === undefined ? (
        children
      ) : (
        <>
          <p>{children}</p>
          <button type="button" onClick={onRetry}>
            Try again
          </button>
        </>
      )}
    </div>
  );
}
