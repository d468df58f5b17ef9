import { CellLabel } from '../shared/CellLabel.tsx';
import { CopyButton } from '../shared/CopyButton.tsx';
import { DateText } from '../shared/DateText.tsx';
import { formatCount } from '../shared/format.ts';
import { StackTableHead } from '../shared/StackTableHead.tsx';
import type { Link } from './api.ts';
import { linkElementId, linkHref, linkKeyOf } from './link-key.ts';
import { StateBadge } from './StateBadge.tsx';
import { Tags } from './Tags.tsx';

interface LinkTableProps {
  links: Link[];
  /** The default domain's host, whose links' pages need no `?domain=`; null while not known. */
  defaultHost: string | null;
  busy: boolean;
}

/**
 * The links as a table on wide screens and as stacked cards on narrow ones (CSS only). The explicit roles keep
 * the table's semantics when the cards' CSS changes its display; each cell's label is for sight only, as
 * screen readers already have the column header.
 */
export function LinkTable({ links, defaultHost, busy }: LinkTableProps) {
  return (
    <table class="link-table stack-table" role="table" aria-busy={busy}>
      <caption class="visually-hidden">Links</caption>
      <StackTableHead columns={['Link', 'Target', 'Tags', 'State', 'Clicks', 'Created']} numeric={['Clicks']} />
      <tbody role="rowgroup">
        {links.map((link) => (
          <LinkRow key={`${link.domain}/${link.code}`} link={link} defaultHost={defaultHost} />
        ))}
      </tbody>
    </table>
  );
}

function LinkRow({ link, defaultHost }: { link: Link; defaultHost: string | null }) {
  const key = linkKeyOf(link, defaultHost);
  const shortId = linkElementId('short', key);
  return (
    <tr role="row">
      <td role="cell" class="cell-link">
        <a class="row-title" href={linkHref(key)} id={linkElementId('row', key)}>
          {link.title ?? link.code}
        </a>
        <div class="short-url">
          <code id={shortId}>{link.shortUrl}</code>
          <CopyButton text={link.shortUrl} what={`short URL ${link.shortUrl}`} sourceId={shortId} />
        </div>
      </td>
      <td role="cell" class="cell-target">
        <CellLabel>Target</CellLabel>
        <span class="truncate" title={link.url}>
          {link.url}
        </span>
      </td>
      <td role="cell">
        <CellLabel>Tags</CellLabel>
        {link.tags.length === 0 ? <span class="muted">None</span> : <Tags tags={link.tags} />}
      </td>
      <td role="cell">
        <CellLabel>State</CellLabel>
        <StateBadge state={link.state} />
      </td>
      <td role="cell" class="numeric">
        <CellLabel>Clicks</CellLabel>
        <span class="clicks">
          {formatCount(link.clicks)} <span class="muted">{link.clicks === 1 ? 'person' : 'people'}</span>
        </span>{' '}
        <span class="clicks">
          {formatCount(link.botClicks)} <span class="muted">{link.botClicks === 1 ? 'bot' : 'bots'}</span>
        </span>
      </td>
      <td role="cell">
        <CellLabel>Created</CellLabel>
        <DateText iso={link.createdAt} />
      </td>
    </tr>
  );
}
