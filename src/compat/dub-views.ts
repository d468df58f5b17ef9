// Our links and tags in Dub's shapes (its LinkSchema and tag), every field Dub's SDK requires
// present: what we keep mapped, what we do not keep as Dub's empty value (null, false, 0).

import type { ShortUrls } from '../domains/short-urls.ts';
import type { LinkDetails } from '../links/store.ts';
import { linkIdOf } from './dub-bodies.ts';

/** Dub's tag colours; a tag here has none, so one is derived from its name, the same every time. */
const COLORS = ['red', 'yellow', 'green', 'blue', 'purple', 'brown', 'gray', 'pink'] as const;

/** A tag as Dub's: its id is its name (tags here are labels on links, named, not numbered). */
export function dubTag(name: string) {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return { id: name, name, color: COLORS[hash % COLORS.length] as string };
}

export function dubLink(link: LinkDetails, shortUrls: ShortUrls) {
  const { domain, shortUrl } = shortUrls.of(link);
  const preview = link.options?.preview;
  const created = link.createdAt.toISOString();
  const workspaceId = `ws_${link.workspaceId}`;
  return {
    id: linkIdOf(link.domainHost, link.code),
    domain,
    key: link.code,
    url: link.url,
    trackConversion: false,
    externalId: null,
    tenantId: null,
    programId: null,
    partnerId: null,
    archived: (link.archivedAt ?? null) !== null,
    expiresAt: link.expiresAt?.toISOString() ?? null,
    expiredUrl: link.options?.expiredUrl ?? null,
    // We keep whether a link is disabled, not since when.
    disabledAt: null,
    // Dub shows a link's password; we keep only its hash.
    password: null,
    proxy: preview !== undefined,
    title: preview?.title ?? null,
    description: preview?.description ?? null,
    image: preview?.image ?? null,
    video: null,
    rewrite: false,
    doIndex: false,
    ios: null,
    android: null,
    geo: null,
    publicStats: false,
    tags: link.tags.map(dubTag),
    folderId: null,
    comments: link.title,
    shortLink: shortUrl,
    qrCode: `${new URL(shortUrl).origin}/links/${encodeURIComponent(link.code)}/qr`,
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    utm_term: null,
    utm_content: null,
    userId: link.ownerKeyId === null ? null : `key_${link.ownerKeyId}`,
    workspaceId,
    clicks: link.clicks,
    leads: 0,
    conversions: 0,
    sales: 0,
    saleAmount: 0,
    lastClicked: null,
    createdAt: created,
    // We keep no time of a link's last change; its creation stands in.
    updatedAt: created,
    tagId: link.tags[0] ?? null,
    projectId: workspaceId,
    webhookIds: [],
  };
}
