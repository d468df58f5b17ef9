import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import type { Session } from '../../api/client.ts';
import { permissions, useApp } from '../../auth/context.ts';
import { ErrorMessage } from '../../shared/Field.tsx';
import { useAnnounce } from '../../shared/Status.tsx';
import { useAction } from '../../shared/use-action.ts';
import { deleteLink, updateLink } from '../api.ts';
import { DeleteLinkDialog } from '../DeleteLinkDialog.tsx';
import { linkHref, type LinkKey } from '../link-key.ts';
import { LinkTable } from '../LinkTable.tsx';
import type { MenuItem } from './RowMenu.tsx';
import type { ListedLink } from './list-api.ts';
import { QrDialog } from './QrDialog.tsx';

interface LinkListProps {
  links: ListedLink[];
  defaultHost: string | null;
  busy: boolean;
  /** A link changed (enabled, disabled): its new state, to show in its row. */
  onChanged: (link: ListedLink) => void;
  onDeleted: (link: ListedLink) => void;
}

type Target = { link: ListedLink; key: LinkKey };

/** The table of links with each row's menu: QR code, edit, duplicate, disable or enable, delete (after a confirmation). */
export function LinkList({ links, defaultHost, busy, onChanged, onDeleted }: LinkListProps) {
  const { api, session } = useApp();
  const { route } = useLocation();
  const announce = useAnnounce();
  const [qr, setQr] = useState<Target | null>(null);
  const [deleting, setDeleting] = useState<Target | null>(null);
  const toggling = useAction<'toggle'>();
  const removing = useAction<'delete'>();

  const toggle = ({ link, key }: Target) =>
    toggling.run('toggle', async () => {
      const updated = await updateLink(api, key, { disabled: !link.disabled });
      // The PATCH answers the link without its trend: the row keeps the one it had.
      onChanged({ ...updated, ...(link.trend === undefined ? {} : { trend: link.trend }) });
      announce(updated.disabled ? `Link ${link.code} disabled` : `Link ${link.code} enabled`);
    });

  const remove = (target: Target) =>
    removing.run('delete', async () => {
      await deleteLink(api, target.key);
      setDeleting(null);
      onDeleted(target.link);
      announce(`Link ${target.link.code} deleted`);
    });

  const menuOf = (link: ListedLink, key: LinkKey) => rowMenu(session, { link, key }, { setQr, toggle, setDeleting, route });

  return (
    <>
      {toggling.error !== null && <ErrorMessage>The link could not be changed: {toggling.error}</ErrorMessage>}
      <LinkTable links={links} defaultHost={defaultHost} busy={busy} menuOf={menuOf} />
      <QrDialog link={qr} onClose={() => setQr(null)} />
      <DeleteLinkDialog
        shortUrl={deleting?.link.shortUrl ?? null}
        busy={removing.busy !== null}
        error={removing.error}
        onConfirm={() => deleting !== null && remove(deleting)}
        onCancel={() => {
          setDeleting(null);
          removing.setError(null);
        }}
      />
    </>
  );
}

interface MenuActions {
  setQr: (target: Target) => void;
  toggle: (target: Target) => void;
  setDeleting: (target: Target) => void;
  route: (url: string) => void;
}

/** What the signed-in key may do with a link from its row, as its page decides it (permissions().canManage). */
function rowMenu(session: Session, target: Target, actions: MenuActions): MenuItem[] {
  const can = permissions(session);
  const { link, key } = target;
  const items: MenuItem[] = [{ label: 'QR code', onSelect: () => actions.setQr(target) }];
  if (can.canManage(link.creator)) items.push({ label: 'Edit', href: `${linkHref(key)}#edit` });
  if (can.canCreate) items.push({ label: 'Duplicate', onSelect: () => actions.route(duplicateHref(key)) });
  if (can.canManage(link.creator)) {
    items.push({ label: link.disabled ? 'Enable' : 'Disable', onSelect: () => actions.toggle(target) });
    items.push({ label: 'Delete', danger: true, onSelect: () => actions.setDeleting(target) });
  }
  return items;
}

/** The new-link page, filled from this link (NewLinkPage reads `duplicate`, and `domain` off the default domain). */
export function duplicateHref(key: LinkKey): string {
  const params = new URLSearchParams({ duplicate: key.code });
  if (key.domain !== null) params.set('domain', key.domain);
  return `/app/links/new?${params}`;
}
