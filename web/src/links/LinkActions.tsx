import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { ErrorMessage } from '../shared/Field.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { useAction } from '../shared/use-action.ts';
import { deleteLink, updateLink, type Link } from './api.ts';
import { DeleteLinkDialog } from './DeleteLinkDialog.tsx';
import type { LinkKey } from './link-key.ts';

interface LinkActionsProps {
  link: Link;
  linkKey: LinkKey;
  onChange: (link: Link) => void;
}

/** Disable or enable a link (PATCH disabled), archive or unarchive it (PATCH archived), and delete it after a confirmation. */
export function LinkActions({ link, linkKey, onChange }: LinkActionsProps) {
  const { api } = useApp();
  const { route } = useLocation();
  const announce = useAnnounce();
  const [confirming, setConfirming] = useState(false);
  const toggling = useAction<'toggle'>();
  const archiving = useAction<'archive'>();
  const archived = (link.archivedAt ?? null) !== null;
  const deleting = useAction<'delete'>();

  const toggle = () =>
    toggling.run('toggle', async () => {
      const updated = await updateLink(api, linkKey, { disabled: !link.disabled });
      onChange(updated);
      announce(updated.disabled ? 'Link disabled' : 'Link enabled');
    });

  const archive = () =>
    archiving.run('archive', async () => {
      const updated = await updateLink(api, linkKey, { archived: !archived });
      onChange(updated);
      announce((updated.archivedAt ?? null) !== null ? 'Link archived' : 'Link unarchived');
    });

  const remove = () =>
    deleting.run('delete', async () => {
      await deleteLink(api, linkKey);
      announce(`Link ${link.code} deleted`);
      route('/app/links');
    });

  return (
    <section class="panel" aria-labelledby="actions-heading">
      <h2 id="actions-heading">Disable, archive or delete</h2>
      {toggling.error !== null && <ErrorMessage>{toggling.error}</ErrorMessage>}
      {archiving.error !== null && <ErrorMessage>{archiving.error}</ErrorMessage>}
      <div class="action-row">
        <div>
          <button type="button" onClick={toggle} aria-disabled={toggling.busy !== null} aria-describedby="toggle-hint">
            {link.disabled ? 'Enable link' : 'Disable link'}
          </button>
          <p class="hint" id="toggle-hint">
            {link.disabled ? 'The link redirects again once enabled.' : 'A disabled link answers “410 Gone” until it is enabled again.'}
          </p>
        </div>
        <div>
          <button type="button" onClick={archive} aria-disabled={archiving.busy !== null} aria-describedby="archive-hint">
            {archived ? 'Unarchive link' : 'Archive link'}
          </button>
          <p class="hint" id="archive-hint">
            {archived
              ? 'Archived: it still redirects, and is listed only under “Archived”. Unarchive it to list it again.'
              : 'An archived link still redirects; it leaves the list (see it with the “Archived” filter).'}
          </p>
        </div>
        <div>
          <button type="button" class="button-danger" onClick={() => setConfirming(true)} aria-describedby="delete-hint">
            Delete link
          </button>
          <p class="hint" id="delete-hint">
            Deleting cannot be undone; the code is never handed out again.
          </p>
        </div>
      </div>
      <DeleteLinkDialog
        shortUrl={confirming ? link.shortUrl : null}
        busy={deleting.busy !== null}
        error={deleting.error}
        onConfirm={remove}
        onCancel={() => {
          setConfirming(false);
          deleting.setError(null);
        }}
      />
    </section>
  );
}
