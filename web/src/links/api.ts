// The links routes of the API: a link, its options, the list and its filters, tags, and the QR code's address.
import type { Static } from 'typebox';
import type { LinkState } from '../../../src/core/link.ts';
import type { ListSort } from '../../../src/links/list-query.ts';
import type { QrLevel } from '../../../src/links/qr-image.ts';
import type * as schema from '../../../src/links/schemas.ts';
import * as sdk from '../../../src/client/operations.ts';
import type { Api } from '../api/client.ts';
import { linkPath, linkRequest, type LinkKey } from './link-key.ts';

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
  archived?: 'include' | 'only';
  creator?: number;
  health?: 'broken';
  sort?: ListSort;
};

/** GET /links's query parameters (`archived` named until the typed client is generated again with it). */
export type ListParams = NonNullable<sdk.GetLinksData['query']>;

export async function listLinks(api: Api, query: ListQuery, cursor: string | null, signal?: AbortSignal): Promise<LinkPage> {
  const page = { ...listParams(query), limit: '25', ...(cursor === null ? {} : { cursor }) };
  const { data } = await sdk.getLinks({ client: api.client, throwOnError: true, query: page, signal: signal ?? null });
  return data;
}

export async function getLink(api: Api, link: LinkKey, signal?: AbortSignal): Promise<Link> {
  const { data } = await sdk.getLinksByCode({ client: api.client, throwOnError: true, ...linkRequest(link), signal: signal ?? null });
  return data;
}

export async function createLink(api: Api, link: NewLink): Promise<CreatedLink> {
  const { data } = await sdk.postLinks({ client: api.client, throwOnError: true, body: link });
  return data;
}

export async function updateLink(api: Api, link: LinkKey, changes: LinkChanges): Promise<Link> {
  const { data } = await sdk.patchLinksByCode({ client: api.client, throwOnError: true, ...linkRequest(link), body: changes });
  return data;
}

export async function deleteLink(api: Api, link: LinkKey): Promise<void> {
  await sdk.deleteLinksByCode({ client: api.client, throwOnError: true, ...linkRequest(link) });
}

export async function listTags(api: Api, signal?: AbortSignal): Promise<TagCount[]> {
  const { data } = await sdk.getTags({ client: api.client, throwOnError: true, signal: signal ?? null });
  return data.tags;
}

/** The list's filters as the API's query parameters (also those of the CSV export link). */
export function listParams(query: ListQuery): ListParams {
  const params: ListParams = {};
  if (query.q !== undefined) params.q = query.q;
  if (query.domain !== undefined) params.domain = query.domain;
  if (query.tag !== undefined) params.tag = query.tag;
  if (query.state !== undefined) params.state = query.state;
  if (query.creator !== undefined) params.creator = String(query.creator);
  if (query.health !== undefined) params.health = query.health;
  if (query.archived !== undefined) params.archived = query.archived;
  if (query.sort !== undefined) params.sort = query.sort;
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
