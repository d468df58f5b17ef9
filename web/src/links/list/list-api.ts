// The list's own request: GET /links with each link's trend, and the types of what it answers.
import type { Static } from 'typebox';
import type * as schema from '../../../../src/links/schemas.ts';
import type { Api } from '../../api/client.ts';
import { listParams, type ListQuery } from '../api.ts';

export type ListedLink = Static<typeof schema.ListedLink>;
export type ListedPage = Static<typeof schema.LinkList>;

export const PAGE_SIZE = 25;

/** A page of the list, each link with its 14-day trend; the first page (no cursor) with the total. */
export function listPage(api: Api, query: ListQuery, cursor: string | null, signal?: AbortSignal): Promise<ListedPage> {
  const params = listParams(query);
  params.set('limit', String(PAGE_SIZE));
  params.set('include', 'trend');
  if (cursor !== null) params.set('cursor', cursor);
  return api.request<ListedPage>(`/links?${params}`, { signal });
}
