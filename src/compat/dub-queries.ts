// Dub's query parameters (the list's, the count's, the tags' and domains' pages) as ours: each
// parameter given once, and one Dub does not send here refused (422) rather than ignored.

import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';

/** The list's own filters from Dub's: search, one tag, the order. */
export async function listParams(
  query: Record<string, string | undefined>,
): Promise<{ q?: string; tag?: string; sort?: string; archived?: string }> {
  const tags = [query.tagNames, query.tagIds, query.tagId].flatMap((list) => list?.split(',') ?? []).filter((tag) => tag !== '');
  if (new Set(tags).size > 1) throw new AppError('LIST_QUERY_INVALID', 'tagNames: one tag at a time here.', { field: 'tagNames' });
  const sortBy = query.sortBy ?? query.sort ?? 'createdAt';
  if ((sortBy !== 'createdAt' && sortBy !== 'clicks') || (query.sortOrder !== undefined && query.sortOrder !== 'desc'))
    throw new AppError('LIST_QUERY_INVALID', 'sortBy: createdAt or clicks, sortOrder: desc (the orders of this service’s list).');
  const search = query.search === undefined || query.search === '' ? {} : { q: query.search };
  // Dub's showArchived=true lists archived links with the others, as our archived=include does.
  const archived = query.showArchived === 'true' ? { archived: 'include' } : {};
  return { ...search, ...(tags[0] === undefined ? {} : { tag: tags[0] }), sort: sortBy === 'clicks' ? 'clicks' : 'created', ...archived };
}

/** The query's parameters among `names`, each given once; any other is refused (422). */
export function stringQuery(request: FastifyRequest, names: readonly string[]): Record<string, string | undefined> {
  const query = request.query as Record<string, unknown>;
  for (const [name, value] of Object.entries(query)) {
    if (!names.includes(name))
      throw new AppError('LIST_QUERY_INVALID', `${name}: this query parameter is not served here (see docs/compat.md#dub).`);
    if (typeof value !== 'string') throw new AppError('LIST_QUERY_INVALID', `The query parameter "${name}" is given more than once.`);
  }
  return query as Record<string, string | undefined>;
}
