import { useState } from 'preact/hooks';
import { errorMessage } from '../api/errors.ts';

/** A form's errors by place: a field, or one control of a group (a link's options). */
export type FormErrors<P extends string> = Partial<Record<P, string>>;

export interface FormSubmitOptions<P extends string> {
  /** Where on the form an error of the call goes (see fieldIn); null: above the form, an error of the whole form. */
  placeOf: (error: unknown) => P | null;
  /** The id of the control that takes the focus for an error at `place` (default: the place is the id). */
  controlOf?: (place: P) => string;
  /** Checks before anything is sent: errors by place (the first takes the focus), or null to send. */
  check?: () => FormErrors<P> | null;
  /** How an error reads at its place (default: errorMessage). */
  messageOf?: (error: unknown, place: P | null) => string;
}

export interface FormSubmit<P extends string> {
  /** While the call is under way: the submit button says so, and a second submit does nothing. */
  busy: boolean;
  errors: FormErrors<P>;
  /** The error of the whole form, shown above it. */
  formError: string | null;
  /** The form's onSubmit. */
  submit: (event: Event) => void;
  /** Drops the error at `place` (its field was changed). */
  clear: (place: P) => void;
}

/**
 * A form's submission: its checks, then `send` (once at a time); an error it throws is shown at its place, whose
 * control takes the focus so that the message is read with it (aria-describedby), or above the form.
 */
export function useFormSubmit<P extends string>(send: () => Promise<void>, options: FormSubmitOptions<P>): FormSubmit<P> {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors<P>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const focus = (place: P) => document.getElementById(options.controlOf?.(place) ?? place)?.focus();

  const run = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setErrors({});
    setFormError(null);
    const problems = options.check?.() ?? null;
    const first = problems === null ? undefined : (Object.keys(problems) as P[])[0];
    if (problems !== null && first !== undefined) {
      setErrors(problems);
      // After the render that ties the message to its control (and opens the section it is in).
      requestAnimationFrame(() => focus(first));
      return;
    }
    setBusy(true);
    try {
      await send();
    } catch (error) {
      const place = options.placeOf(error);
      const message = (options.messageOf ?? errorMessage)(error, place);
      if (place === null) {
        setFormError(message);
      } else {
        const shown: FormErrors<P> = {};
        shown[place] = message;
        setErrors(shown);
        // After the render that ties the message to its control (and opens the options it is in).
        requestAnimationFrame(() => focus(place));
      }
    } finally {
      setBusy(false);
    }
  };

  const clear = (place: P) =>
    setErrors((shown) => {
      if (shown[place] === undefined) return shown;
      const rest = { ...shown };
      delete rest[place];
      return rest;
    });

  return { busy, errors, formError, submit: (event) => void run(event), clear };
}
