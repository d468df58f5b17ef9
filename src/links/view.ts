// A link as the API shows it (the Link schema in schemas.ts): its list item, and the answer of
// GET and PATCH /links/:code.

import type { Static } from 'typebox';
import { linkState } from '../core/link.ts';
import { shownOptions, type LinkOptions } from '../core/link-options.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import type { LinkOptions as LinkOptionsSchema } from './schemas.ts';
import type { LinkDetails } from './store.ts';

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
    startsAt: link.startsAt?.toISOString() ?? null,
    disabled: link.disabled,
    archivedAt: link.archivedAt?.toISOString() ?? null,
    state: linkState(link, now, link.clicksUsed),
    safety: link.safety === null ? null : { action: link.safety, list: link.safetyList ?? '' },
    createdAt: link.createdAt.toISOString(),
    creator: link.ownerKeyId === null ? null : { id: link.ownerKeyId, name: link.ownerName ?? '' },
    clicks: link.clicks,
    botClicks: link.botClicks,
    clicksUsed: link.options?.clickLimit === undefined ? null : link.clicksUsed,
    options: optionsView(link.options),
  };
}

/** Options as the API's schema types them (its arrays are not readonly). */
export function optionsView(options: LinkOptions | null): Static<typeof LinkOptionsSchema> | null {
  return shownOptions(options) as Static<typeof LinkOptionsSchema> | null;
}
