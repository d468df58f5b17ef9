// A link as the API shows it (the Link schema in schemas.ts): its list item, and the answer of
// GET and PATCH /links/:code.

import { linkState } from '../core/link.ts';
import type { LinkDetails } from '../db/links.ts';

export function linkView(link: LinkDetails, baseUrl: string, now: number) {
  return {
    code: link.code,
    shortUrl: `${baseUrl}/${link.code}`,
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
