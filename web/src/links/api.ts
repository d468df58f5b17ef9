// The links routes of the API: a link, its options, the list and its filters, tags, and the QR code's address.
import type { Api } from '../api/client.ts';
import { linkPath, type LinkKey } from './link-key.ts';

export type LinkState = 'active' | 'expired' | 'disabled';

export interface Link {
  code: string;
  /** The host of the link's short domain; the same code may exist on two domains. */
  domain: string;
  shortUrl: string;
  url: string;
  title: string | null;
  tags: string[];
  expiresAt: string | null;
  disabled: boolean;
  state: LinkState;
  createdAt: string;
  creator: { id: number; name: string } | null;
  clicks: number;
  botClicks: number;
  /** Options beyond the URL; null: a plain link. */
  options: LinkOptions | null;
}

/** A rule's condition: every part given must hold (README: Link options). */
export interface TargetCondition {
  device?: string[];
  country?: string[];
  language?: string[];
  query?: { name: string; value?: string };
  from?: string;
  until?: string;
}

export interface LinkOptions {
  redirectStatus?: number | null;
  forwardQuery?: boolean | null;
  targets?: { when: TargetCondition; url: string }[] | null;
  split?: { url: string; weight: number }[] | null;
  preview?: { title?: string; description?: string; image?: string } | null;
  deepLink?: { ios?: string; android?: string } | null;
  /** A new password; true: the link has one (and, sent back, keeps it). */
  password?: string | true | null;
  clickLimit?: number | null;
}

export interface LinkPage {
  links: Link[];
  nextCursor: string | null;
}

export interface ListQuery {
  q?: string;
  domain?: string;
  tag?: string;
  state?: LinkState;
  creator?: number;
  sort?: 'created' | 'clicks';
}

export interface NewLink {
  url: string;
  /** A host of the workspace's domains; absent: the default domain. */
  domain?: string;
  alias?: string;
  expiresAt?: string | null;
  title?: string | null;
  tags?: string[];
  options?: LinkOptions | null;
}

export interface CreatedLink {
  code: string;
  domain: string;
  shortUrl: string;
  url: string;
  expiresAt: string | null;
  title: string | null;
  tags: string[];
  options: LinkOptions | null;
}

export interface LinkChanges {
  url?: string;
  expiresAt?: string | null;
  disabled?: boolean;
  title?: string | null;
  tags?: string[];
  options?: LinkOptions | null;
}

export interface TagCount {
  tag: string;
  links: number;
}

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
  const answer = await api.request<{ tags: TagCount[] }>('/tags', { signal });
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

export function qrUrl(link: LinkKey, options: { format: 'svg' | 'png'; size: number; margin: number; level: string }): string {
  return linkPath(link, '/qr', {
    format: options.format,
    size: String(options.size),
    margin: String(options.margin),
    level: options.level,
  });
}
