// GET /links: a workspace's links, searched, filtered, sorted and paged; GET /tags: its tags with
// their counts; GET /links/export.csv: the same list as a CSV file, streamed page by page (never
// built in memory), with click totals. Any key of the workspace may read them. Searches and exports
// are the list's slow requests: a workspace may have LIST_SLOW_PER_WORKSPACE of them under way at
// once on an instance (workspace-slots.ts), more get 429 TOO_MANY_SLOW_REQUESTS.

import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { actorOf } from '../audit/audit.ts';
import { requireKey } from '../auth/authenticate.ts';
import { encodeCursor, LIST_LIMIT_MAX, readFilter, readListQuery, type Cursor, type ListFilter, type ListRequest } from './list-query.ts';
import type { LinkLists } from './list-store.ts';
import { AppError } from '../errors.ts';
import { shownOptions } from '../core/link-options.ts';
import { csvLine, formulaSafe } from '../api/csv.ts';
import { linkView } from './view.ts';
import { SECURITY } from '../api/schemas.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import { errorResponses as errors } from '../errors.ts';
import { LinkList, ListQuery, TagList } from './schemas.ts';
import type { LinkDetails } from './store.ts';
import type { WorkspaceSlots } from './workspace-slots.ts';
import { trendKey } from './list-trends.ts';

export interface LinkListDeps {
  /** The pages and tags, read through the list's own pool and breaker. */
  lists: LinkLists;
  shortUrls: ShortUrls;
  /** Each workspace's share of the slow requests (LIST_SLOW_PER_WORKSPACE). */
  slow: WorkspaceSlots;
}

/** A slot for a slow request of `workspaceId`'s, or 429 TOO_MANY_SLOW_REQUESTS. */
function slowSlot(slow: WorkspaceSlots, workspaceId: number, reply: FastifyReply): () => void {
  const release = slow.take(workspaceId);
  if (release !== undefined) return release;
  reply.header('retry-after', '1');
  throw new AppError('TOO_MANY_SLOW_REQUESTS');
}

export const EXPORT_COLUMNS = [
  'code',
  'domain',
  'shortUrl',
  'url',
  'title',
  'tags',
  'createdAt',
  'expiresAt',
  'disabled',
  'clicks',
  'botClicks',
  'creator',
  // The link's options as the API writes them (JSON), empty for a plain link; the import reads them back.
  'options',
];

const LIST_LINKS = {
  summary: "The workspace's links: searched, filtered, sorted, a page at a time",
  description:
    'Pages are keyset pages: give nextCursor as cursor for the next one. Links created meanwhile never shift a page ' +
    '(none is shown twice or skipped); with sort=clicks a link whose count changes may move. Any key of the workspace.',
  tags: ['links'],
  security: SECURITY,
  querystring: ListQuery,
  response: { 200: LinkList, ...errors(400, 401, 429, 503) },
};

const LIST_TAGS = {
  summary: "The workspace's tags, with how many links have each",
  description: 'Most used first; at most 1000. Any key of the workspace.',
  tags: ['links'],
  security: SECURITY,
  response: { 200: TagList, ...errors(401, 503) },
};

/** The list's filters alone: the export reads every page. */
const { limit: _limit, cursor: _cursor, sort: _sort, include: _include, ...filterProperties } = ListQuery.properties;

const EXPORT_LINKS = {
  summary: "The workspace's links as a CSV file, with their click totals",
  description:
    `Columns: ${EXPORT_COLUMNS.join(', ')}; tags joined with "|". The same filters as GET /links; newest first; ` +
    'streamed. A title or tag that would start a spreadsheet formula (=, +, -, @) is written after a "\'" ' +
    '(the import removes it again). Any key of the workspace.',
  tags: ['links'],
  security: SECURITY,
  querystring: { type: 'object', properties: filterProperties, additionalProperties: false },
  response: {
    200: { description: 'The CSV file.', content: { 'text/csv': { schema: { type: 'string' } } } },
    ...errors(400, 401, 429, 503),
  },
};

export async function linkListRoutes(plain: FastifyInstance, { lists, shortUrls, slow }: LinkListDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  /** `filter` with the domain `host` names, if any: one of the workspace's (400 DOMAIN_UNKNOWN otherwise). */
  const onDomain = async (filter: ListFilter, host: string | undefined, workspaceId: number): Promise<ListFilter> =>
    host === undefined ? filter : { ...filter, domainId: (await shortUrls.domainOf(host, workspaceId)).id };

  app.get(
    '/links',
    {
      schema: LIST_LINKS,
      config: { queryError: 'LIST_QUERY_INVALID' },
    },
    async function listLinks(request, reply) {
      const key = requireKey(request);
      const verdict = readListQuery(request.query);
      if (!verdict.ok) throw new AppError(verdict.code, verdict.message);
      const filter = await onDomain(verdict.request.filter, request.query.domain, key.workspaceId);
      const withTrend = readInclude(request.query.include);
      const release = filter.q === undefined ? undefined : slowSlot(slow, key.workspaceId, reply);
      let page;
      let trends;
      try {
        // The total on the first page only: later pages keep it, and each page costs one count at most.
        page = await lists.page(key.workspaceId, { ...verdict.request, filter }, verdict.request.after === undefined);
        trends = withTrend ? await lists.trends(page.links) : undefined;
      } finally {
        release?.();
      }
      const now = Date.now();
      return {
        links: page.links.map((link) => {
          const view = linkView(link, shortUrls, now);
          const trend = trends?.get(trendKey(link));
          return trend === undefined ? view : { ...view, trend };
        }),
        nextCursor: page.next === undefined ? null : encodeCursor(page.next),
        ...(page.total === undefined ? {} : { total: page.total.count, totalAtLeast: page.total.atLeast }),
      };
    },
  );

  app.get(
    '/tags',
    {
      schema: LIST_TAGS,
    },
    async function listTags(request) {
      const key = requireKey(request);
      return { tags: await lists.tags(key.workspaceId) };
    },
  );

  app.get(
    '/links/export.csv',
    {
      schema: EXPORT_LINKS,
      config: { queryError: 'LIST_QUERY_INVALID' },
    },
    async function exportLinks(request, reply) {
      const key = requireKey(request);
      const read = readFilter(request.query);
      if (typeof read === 'string') throw new AppError('LIST_QUERY_INVALID', read);
      const filter = await onDomain(read, request.query.domain, key.workspaceId);
      // Held until the file is sent, or the client goes away: the audit entry's statement too, so that
      // a workspace's flood of exports takes its own share of the list's connections, no more.
      const release = slowSlot(slow, key.workspaceId, reply);
      reply.raw.once('close', release);
      // The first page is read before answering: a database that cannot answer is a 503, not a cut CSV.
      const pages = exportPages(lists, key.workspaceId, filter, release);
      let first;
      try {
        // Recorded before a link is read: an export the audit log cannot record is not made.
        await lists.recordExport(actorOf(key, request.ip), key.workspaceId, asked(request.query));
        first = await pages.next();
      } catch (err) {
        release();
        throw err;
      }
      const day = new Date().toISOString().slice(0, 10);
      return (
        reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="links-${day}.csv"`)
          .header('cache-control', 'no-store')
          // The schema documents the body as text; Fastify sends a stream as it comes (no serialiser runs).
          .send(Readable.from(exportLines(first, pages, shortUrls)))
      );
    },
  );
}

const EXPORT_PAGE = LIST_LIMIT_MAX * 10;

/** Whether `include` asks for the trends: a comma-separated list of what the list can add (only `trend` so far). */
function readInclude(include: string | undefined): boolean {
  if (include === undefined) return false;
  const parts = include.split(',').map((part) => part.trim());
  if (parts.some((part) => part !== 'trend')) throw new AppError('LIST_QUERY_INVALID', 'include must be trend (or left out).');
  return true;
}

/** The parameters a query gave, as the audit log records them. */
function asked(query: object): Record<string, string> {
  return Object.fromEntries(Object.entries(query).filter((pair): pair is [string, string] => typeof pair[1] === 'string'));
}

/** The export's pages; `done` once the last was read, or the reading stopped. */
async function* exportPages(lists: LinkLists, workspaceId: number, filter: ListFilter, done: () => void): AsyncGenerator<LinkDetails[]> {
  try {
    let after: Cursor | undefined;
    do {
      const request: ListRequest = { sort: 'created', limit: EXPORT_PAGE, filter, after };
      const page = await lists.page(workspaceId, request);
      yield page.links;
      after = page.next;
    } while (after !== undefined);
  } finally {
    done();
  }
}

async function* exportLines(
  first: IteratorResult<LinkDetails[]>,
  rest: AsyncGenerator<LinkDetails[]>,
  urls: ShortUrls,
): AsyncGenerator<string> {
  yield csvLine(EXPORT_COLUMNS);
  if (first.done === true) return;
  yield exportRows(first.value, urls);
  for await (const links of rest) yield exportRows(links, urls);
}

function exportRows(links: readonly LinkDetails[], urls: ShortUrls): string {
  return links
    .map((link) => {
      const { domain, shortUrl } = urls.of(link);
      return csvLine([
        link.code,
        domain,
        shortUrl,
        link.url,
        { text: link.title ?? '' },
        // Each tag on its own: the import splits the cell, then reads each tag back.
        link.tags.map(formulaSafe).join('|'),
        link.createdAt.toISOString(),
        link.expiresAt?.toISOString() ?? '',
        String(link.disabled),
        String(link.clicks),
        String(link.botClicks),
        { text: link.ownerName ?? '' },
        // Without the password's hash: an imported link with `password: true` is refused, and needs a new password.
        link.options === null ? '' : JSON.stringify(shownOptions(link.options)),
      ]);
    })
    .join('');
}
