// The list's own request: GET /links with each link's trend, and the types of what it answers.
import type { Static } from 'typebox';
import type * as schema from '../../../../src/links/schemas.ts';
import * as sdk from '../../../../src/client/operations.ts';
import type { Api } from '../../api/client.ts';
import { listParams, type ListQuery } from '../api.ts';

export type ListedLink = Static<typeof schema.ListedLink>;
export type ListedPage = Static<typeof schema.LinkList>;

export const PAGE_SIZE = 25;

/** A page of the list, each link with its 14-day trend; the first page (no cursor) with the total. */
export async function listPage(api: Api, query: ListQuery, cursor: string | null, signal?: AbortSignal): Promise<ListedPage> {
  const page = { ...listParams(query), limit: String(PAGE_SIZE), include: 'trend', ...(cursor === null ? {} : { cursor }) };
  const { data } = await sdk.getLinks({ client: api.client, throwOnError: true, query: page, signal: signal ?? null });
  return data;
}
