import { linkHref, linkKeyOf } from '../links/link-key.ts';
import { sharePercent } from './analytics.ts';
import type { Counts, TopLink } from './api.ts';
import { BOTS, CountsTable, PEOPLE } from './CountsTable.tsx';
import { ShareBar } from './ShareBar.tsx';

/** The workspace's most clicked links in a period, each leading to its own page. */
export function TopLinks({ links, total, defaultHost }: { links: TopLink[]; total: Counts; defaultHost: string | null }) {
  if (links.length === 0) return <p class="muted">No link was clicked in this period.</p>;
  return (
    <CountsTable<TopLink>
      class="top-table"
      labelledBy="top-links-heading"
      rows={links}
      head="Link"
      columns={[PEOPLE, BOTS]}
      keyOf={(link) => `${link.domain}/${link.code}`}
      label={(link) => (
        <>
          <a class="row-title" href={linkHref(linkKeyOf(link, defaultHost))}>
            {link.title ?? link.code}
          </a>
          <span class="top-link-url">{link.shortUrl}</span>
          <ShareBar percent={sharePercent(link, total)} />
        </>
      )}
    />
  );
}
