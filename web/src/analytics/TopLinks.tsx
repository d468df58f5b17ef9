import { sharePercent } from './analytics.ts';
import { formatCount } from '../shared/format.ts';
import { ShareBar } from './ShareBar.tsx';
import type { Counts, TopLink } from './api.ts';
import { linkHref, linkKeyOf } from '../links/link-key.ts';

/** The workspace's most clicked links in a period, each leading to its own page. */
export function TopLinks({ links, total, defaultHost }: { links: TopLink[]; total: Counts; defaultHost: string | null }) {
  if (links.length === 0) return <p class="muted">No link was clicked in this period.</p>;
  return (
    <div class="table-scroll">
      <table class="top-table" aria-labelledby="top-links-heading">
        <thead>
          <tr>
            <th scope="col">Link</th>
            <th scope="col" class="numeric">
              People
            </th>
            <th scope="col" class="numeric">
              Bots
            </th>
          </tr>
        </thead>
        <tbody>
          {links.map((link) => (
            <tr key={`${link.domain}/${link.code}`}>
              <th scope="row">
                <a class="row-title" href={linkHref(linkKeyOf(link, defaultHost))}>
                  {link.title ?? link.code}
                </a>
                <span class="top-link-url">{link.shortUrl}</span>
                <ShareBar percent={sharePercent(link, total)} />
              </th>
              <td class="numeric">{formatCount(link.clicks)}</td>
              <td class="numeric">{formatCount(link.botClicks)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
