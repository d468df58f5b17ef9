import { ConfirmDialog } from '../shared/ConfirmDialog.tsx';

interface DeleteLinkDialogProps {
  /** The link to delete (its short URL, as the dialog names it); null: the dialog is closed. */
  shortUrl: string | null;
  busy: boolean;
  error: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}

/** The confirmation before a link is deleted, from its page (LinkActions.tsx) or from its row in the list. */
export function DeleteLinkDialog({ shortUrl, busy, error, onConfirm, onCancel }: DeleteLinkDialogProps) {
  return (
    <ConfirmDialog
      open={shortUrl !== null}
      title="Delete this link?"
      confirmLabel="Delete link"
      busy={busy}
      error={error}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>
        <code>{shortUrl}</code> will stop redirecting at once, and its clicks are no longer shown. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
