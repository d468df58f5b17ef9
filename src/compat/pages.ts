// Offset pages (Kutt's skip and limit, Shlink's page and itemsPerPage) over our list, which pages by
// cursor: the list's own pages are walked, at most TOTAL_MAX links deep, to the offset asked.

import { AppError } from '../errors.ts';
import type { ListFilter } from '../links/list-query.ts';
import { readListQuery, TOTAL_MAX, type ListQueryParams } from '../links/list-query.ts';
import type { LinkLists } from '../links/list-store.ts';
import type { LinkDetails } from '../links/store.ts';

/** Our list's largest page, walked to reach the offset. */
const WALK_PAGE = 100;
/** The deepest offset served: as deep as the list counts its total. */
export const OFFSET_MAX = TOTAL_MAX;

export interface OffsetQuery {
  /** The list's own filters and order (q, tag, sort), as GET /links reads them. */
  readonly params: Omit<ListQueryParams, 'limit' | 'cursor' | 'domain'>;
  /** The domain's id, when the list is of one domain's links. */
  readonly domainId?: number;
  readonly skip: number;
  readonly limit: number;
  /** false: the total is not needed (it is then 0), and not counted. */
  readonly counted?: boolean;
}

/** Links `skip`..`skip + limit` of the workspace's list, walked through the list's own pages; and how many there are (unless not `counted`). */
export async function pageAt(lists: LinkLists, workspaceId: number, query: OffsetQuery): Promise<{ total: number; page: LinkDetails[] }> {
  if (query.skip > OFFSET_MAX) throw new AppError('LIST_QUERY_INVALID', `Pages end ${OFFSET_MAX} links deep.`);
  const verdict = readListQuery({ ...query.params, limit: String(WALK_PAGE) });
  if (!verdict.ok) throw new AppError(verdict.code, verdict.message);
  const filter: ListFilter =
    query.domainId === undefined ? verdict.request.filter : { ...verdict.request.filter, domainId: query.domainId };
  let request = { ...verdict.request, filter };
  let total = 0;
  let seen = 0;
  const page: LinkDetails[] = [];
  for (let first = true; ; first = false) {
    const listed = await lists.page(workspaceId, request, first && query.counted !== false);
    if (first) total = listed.total?.count ?? 0;
    for (const link of listed.links) {
      if (seen >= query.skip && page.length < query.limit) page.push(link);
      seen++;
    }
    if (page.length >= query.limit || listed.next === undefined) return { total, page };
    request = { ...request, after: listed.next };
  }
}
