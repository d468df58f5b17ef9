import { CopyButton } from '../shared/CopyButton.tsx';
import { formatCount } from '../shared/format.ts';
import { ShareButton } from '../shared/ShareButton.tsx';
import { StackTableHead } from '../shared/StackTableHead.tsx';
import { linkElementId, linkHref, linkKeyOf, type LinkKey } from './link-key.ts';
import type { ListedLink } from './list/list-api.ts';
import { Monogram } from './list/Monogram.tsx';
import { hostOf } from './list/monogram.ts';
import { RowMenu, type MenuItem } from './list/RowMenu.tsx';
import { Sparkline } from './list/Sparkline.tsx';
import { StateBadge } from './StateBadge.tsx';
import { Tags } from './Tags.tsx';

interface LinkTableProps {
  links: ListedLink[];
  /** The default domain's host, whose links' pages need no `?domain=`; null while not known. */
  defaultHost: string | null;
  busy: boolean;
  /** The row menu's items for a link (what the signed-in key may do with it). */
  menuOf: (link: ListedLink, key: LinkKey) => MenuItem[];
}

/**
 * The links as a table of compact rows on wide screens and as small cards on narrow ones (CSS only). The explicit
 * roles keep the table's semantics when the cards' CSS changes its display.
 */
export function LinkTable({ links, defaultHost, busy, menuOf }: LinkTableProps) {
  return (
    <table class="link-table" role="table" aria-busy={busy}>
      <caption class="visually-hidden">Links</caption>
      <colgroup>
        <col class="col-link" />
        <col class="col-target" />
        <col class="col-tags" />
        <col class="col-state" />
        <col class="col-clicks" />
        <col class="col-menu" />
      </colgroup>
      <StackTableHead columns={['Link', 'Target', 'Tags', 'State', 'Clicks']} numeric={['Clicks']} actions />
      <tbody role="rowgroup">
        {links.map((link) => (
          <LinkRow key={`${link.domain}/${link.code}`} link={link} linkKey={linkKeyOf(link, defaultHost)} menuOf={menuOf} />
        ))}
      </tbody>
    </table>
  );
}

function LinkRow({ link, linkKey, menuOf }: { link: ListedLink; linkKey: LinkKey; menuOf: LinkTableProps['menuOf'] }) {
  const shortId = linkElementId('short', linkKey);
  const name = link.title ?? (hostOf(link.url) || link.code);
  return (
    <tr role="row" class="link-row">
      <td role="cell" class="cell-link">
        <div class="link-cell">
          <Monogram url={link.url} />
          <div class="link-names">
            <a class="row-title" href={linkHref(linkKey)} id={linkElementId('row', linkKey)}>
              {name}
            </a>
            <code class="row-short" id={shortId}>
              {link.shortUrl}
            </code>
          </div>
          <div class="link-copy">
            <CopyButton text={link.shortUrl} what={`short URL ${link.shortUrl}`} sourceId={shortId} />
            <ShareButton url={link.shortUrl} title={link.title ?? undefined} what={`short URL ${link.shortUrl}`} />
          </div>
        </div>
      </td>
      <td role="cell" class="cell-target">
        <span class="truncate" title={link.url}>
          <span class="visually-hidden">Target: </span>
          {link.url.replace(/^https?:\/\//, '')}
        </span>
      </td>
      <td role="cell" class="cell-tags" title={link.tags.length === 0 ? undefined : link.tags.join(', ')}>
        {link.tags.length === 0 ? (
          <span class="muted">
            <span aria-hidden="true">–</span>
            <span class="visually-hidden">No tags</span>
          </span>
        ) : (
          <Tags tags={link.tags} />
        )}
      </td>
      <td role="cell" class="cell-state">
        <StateBadge state={link.state} />
      </td>
      <td role="cell" class="numeric cell-clicks">
        <span class="clicks" title={`${formatCount(link.clicks)} by people, ${formatCount(link.botClicks)} by bots`}>
          {formatCount(link.clicks)}
          <span class="visually-hidden"> {link.clicks === 1 ? 'click' : 'clicks'} by people</span>
          {link.trend !== undefined && <Sparkline trend={link.trend} />}
        </span>
      </td>
      <td role="cell" class="cell-menu">
        <RowMenu label={`Actions for ${name}`} items={menuOf(link, linkKey)} />
      </td>
    </tr>
  );
}
