interface FormButtonsProps {
  busy: boolean;
  submitLabel: string;
  /** Shown on the submit button while the form is being sent. */
  busyLabel: string;
  /** Without it, no Cancel button. */
  onCancel?: (() => void) | undefined;
}

/** A form's submit button (aria-disabled while it is sent, so that it keeps its focus) and an optional Cancel. */
export function FormButtons({ busy, submitLabel, busyLabel, onCancel }: FormButtonsProps) {
  return (
    <div class="button-row">
      <button type="submit" class="button-primary" aria-disabled={busy}>
        {busy ? busyLabel : submitLabel}
      </button>
      {onCancel !== undefined && (
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      )}
    </div>
  );
}
