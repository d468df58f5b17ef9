import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  busy?: boolean;
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * A modal `<dialog>`: the browser keeps focus inside it and closes it on Escape. Focus starts on Cancel (the safe
 * choice) and goes back to the control that opened it when it closes. While `busy`, the buttons stay focusable
 * (aria-disabled, not disabled, so focus is not dropped) but do nothing.
 */
export function ConfirmDialog({ open, title, children, confirmLabel, busy = false, error, onConfirm, onCancel }: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const opener = useRef<Element | null>(null);

  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open && !element.open) {
      opener.current = document.activeElement;
      element.showModal();
      cancel.current?.focus();
    } else if (!open && element.open) {
      element.close();
      // The opener may be gone (a revoked key's row loses its button): the page heading is the next best place.
      const target =
        opener.current instanceof HTMLElement && opener.current.isConnected
          ? opener.current
          : document.querySelector<HTMLElement>('main h1');
      target?.focus();
    }
  }, [open]);

  const titleId = `dialog-title-${title.replaceAll(/\W+/g, '-').toLowerCase()}`;
  return (
    <dialog
      ref={dialog}
      class="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div class="dialog-body">{children}</div>
      {error && (
        <p class="message message-error" role="alert">
          {error}
        </p>
      )}
      <div class="button-row">
        <button type="button" ref={cancel} onClick={() => !busy && onCancel()} aria-disabled={busy}>
          Cancel
        </button>
        <button type="button" class="button-danger" onClick={() => !busy && onConfirm()} aria-disabled={busy}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
