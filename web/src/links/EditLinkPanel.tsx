import { useEffect, useRef, useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { fromDateTimeLocal, parseTags, toDateTimeLocal } from '../shared/format.ts';
import { useAnnounce } from '../shared/Status.tsx';
import { updateLink, type Link, type LinkChanges } from './api.ts';
import type { LinkKey } from './link-key.ts';
import { LinkForm, type LinkFormValues } from './LinkForm.tsx';
import { draftOf, optionsOf } from './options/draft.ts';

/** Edits a link's target, expiry, title and tags (PATCH /links/:code), behind an "Edit link" button. */
export function EditLinkPanel({ link, linkKey, onChange }: { link: Link; linkKey: LinkKey; onChange: (link: Link) => void }) {
  const { api } = useApp();
  const announce = useAnnounce();
  // The list's row menu opens a link's page on #edit: the form is open at once.
  const [editing, setEditing] = useState(() => window.location.hash === '#edit');
  const editButton = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLElement>(null);

  useEffect(() => {
    if (editing) panel.current?.querySelector<HTMLElement>('input')?.focus();
  }, [editing]);

  const close = () => {
    setEditing(false);
    requestAnimationFrame(() => editButton.current?.focus());
  };

  const save = async (values: LinkFormValues) => {
    const changes = linkChanges(link, values);
    if (Object.keys(changes).length === 0) {
      announce('Nothing was changed');
      close();
      return;
    }
    onChange(await updateLink(api, linkKey, changes));
    announce('Changes saved');
    close();
  };

  return (
    <section class="panel" aria-labelledby="edit-heading" ref={panel}>
      <div class="panel-head">
        <h2 id="edit-heading">Edit</h2>
        {!editing && (
          <button type="button" ref={editButton} onClick={() => setEditing(true)}>
            Edit link
          </button>
        )}
      </div>
      {editing && (
        <LinkForm
          mode="edit"
          initial={{
            url: link.url,
            domain: '',
            alias: '',
            startsAt: toDateTimeLocal(startsAtOf(link)),
            expiresAt: toDateTimeLocal(link.expiresAt),
            title: link.title ?? '',
            tags: link.tags.join(', '),
            options: draftOf(link.options),
          }}
          submitLabel="Save changes"
          busyLabel="Saving…"
          onSubmit={save}
          onCancel={close}
        />
      )}
    </section>
  );
}

/**
 * Only what was changed is sent: an expired link's date, sent back unchanged, would be refused as in the past.
 */
function linkChanges(link: Link, values: LinkFormValues): LinkChanges & { startsAt?: string | null } {
  const changes: LinkChanges & { startsAt?: string | null } = {};
  const url = values.url.trim();
  if (url !== link.url) changes.url = url;
  if (values.startsAt !== toDateTimeLocal(startsAtOf(link))) changes.startsAt = fromDateTimeLocal(values.startsAt);
  if (values.expiresAt !== toDateTimeLocal(link.expiresAt)) changes.expiresAt = fromDateTimeLocal(values.expiresAt);
  const title = values.title.trim() === '' ? null : values.title;
  if (title !== link.title) changes.title = title;
  const tags = parseTags(values.tags);
  if (tags.join('\n') !== link.tags.join('\n')) changes.tags = tags;
  const options = optionsOf(values.options);
  // Compared as the form would send the link's own options back: a link's unchanged options are not sent.
  if (JSON.stringify(options) !== JSON.stringify(optionsOf(draftOf(link.options)))) changes.options = options;
  return changes;
}

/** The link's start, once the API has one (`startsAt`, issue 38); null until then. */
function startsAtOf(link: Link): string | null {
  return (link as Link & { startsAt?: string | null }).startsAt ?? null;
}
