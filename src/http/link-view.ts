// A link as the API shows it (the Link schema in schemas.ts): its list item, and the answer of
// GET and PATCH /links/:code.

import { linkState } from '../core/link.ts';
import type { LinkDetails } from '../db/links.ts';
import type { ShortUrls } from './short-urls.ts';

export function linkView(link: LinkDetails, urls: ShortUrls, now: number) {
  const { domain, shortUrl } = urls.of(link);
  return {
    code: link.code,
    domain,
    shortUrl,
    url: link.url,
    title: link.title,
    tags: [...link.tags],
    expiresAt: link.expiresAt?.toISOString() ?? null,
    disabled: link.disabled,
    state: linkState(link, now),
    createdAt: link.createdAt.toISOString(),
    creator: link.ownerKeyId === null ? null : { id: link.ownerKeyId, name: link.ownerName ?? '' },
    clicks: link.clicks,
    botClicks: link.botClicks,
  };
}
