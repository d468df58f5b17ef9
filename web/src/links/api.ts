// The links routes of the API: a link, its options, the list and its filters, tags, and the QR code's address.
import type { Static } from 'typebox';
import type { LinkState } from '../../../src/core/link.ts';
import type { ListSort } from '../../../src/links/list-query.ts';
import type { QrLevel } from '../../../src/links/qr-image.ts';
import type * as schema from '../../../src/links/schemas.ts';
import type { Api } from '../api/client.ts';
import { linkPath, type LinkKey } from './link-key.ts';

export type { LinkState };

export type Link = Static<typeof schema.LinkDetails>;
/** Options beyond the URL (README: Link options); a link without any has null. */
export type LinkOptions = Static<typeof schema.LinkOptions>;
/** A rule's condition: every part given must hold. */
export type TargetCondition = NonNullable<LinkOptions['targets']>[number]['when'];
export type LinkPage = Static<typeof schema.LinkList>;
export type NewLink = Static<typeof schema.CreateLinkBody>;
export type CreatedLink = Static<typeof schema.CreatedLink>;
export type LinkChanges = Static<typeof schema.PatchLinkBody>;
export type TagCount = Static<typeof schema.TagList>['tags'][number];

/** The list's filters and order as the dashboard asks for them: the API's query parameters, `creator` a key's id. */
export type ListQuery = Pick<Static<typeof schema.ListQuery>, 'q' | 'domain' | 'tag'> & {
  state?: LinkState;
  creator?: number;
  sort?: ListSort;
};

export function listLinks(api: Api, query: ListQuery, cursor: string | null, signal?: AbortSignal): Promise<LinkPage> {
  const params = listParams(query);
  params.set('limit', '25');
  if (cursor !== null) params.set('cursor', cursor);
  return api.request<LinkPage>(`/links?${params}`, { signal });
}

export function getLink(api: Api, link: LinkKey, signal?: AbortSignal): Promise<Link> {
  return api.request<Link>(linkPath(link), { signal });
}

export function createLink(api: Api, link: NewLink): Promise<CreatedLink> {
  return api.request<CreatedLink>('/links', { method: 'POST', json: link });
}

export function updateLink(api: Api, link: LinkKey, changes: LinkChanges): Promise<Link> {
  return api.request<Link>(linkPath(link), { method: 'PATCH', json: changes });
}

export function deleteLink(api: Api, link: LinkKey): Promise<void> {
  return api.request<void>(linkPath(link), { method: 'DELETE' });
}

export async function listTags(api: Api, signal?: AbortSignal): Promise<TagCount[]> {
  const answer = await api.request<Static<typeof schema.TagList>>('/tags', { signal });
  return answer.tags;
}

/** The list's filters as the API's query parameters (also used for the CSV export link). */
export function listParams(query: ListQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.q !== undefined) params.set('q', query.q);
  if (query.domain !== undefined) params.set('domain', query.domain);
  if (query.tag !== undefined) params.set('tag', query.tag);
  if (query.state !== undefined) params.set('state', query.state);
  if (query.creator !== undefined) params.set('creator', String(query.creator));
  if (query.sort !== undefined) params.set('sort', query.sort);
  return params;
}

export function qrUrl(link: LinkKey, options: { format: 'svg' | 'png'; size: number; margin: number; level: QrLevel }): string {
  return linkPath(link, '/qr', {
    format: options.format,
    size: String(options.size),
    margin: String(options.margin),
    level: options.level,
  });
}
