// Click statistics: a link's (GET /links/:code/stats) and its workspace's (GET /stats), each also
// as a CSV file. Clicks per day come from the daily counts; unique visitors and the values of each
// dimension from the analytics' rollups (analytics/store.ts). Read through the list's pool and
// breaker: a year of a busy workspace is a heavier read than a redirect's, and must not take its
// connections.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { requireKey } from '../auth/authenticate.ts';
import { statsRange, type DayRange } from '../core/day-range.ts';
import { DIMENSIONS, dimensionId, isDimension, LINK_ONLY_DIMENSIONS, type Dimension } from '../core/dimensions.ts';
import { HLL_ERROR } from '../core/hll.ts';
import { readOrphans, readRollups, readTopLinks, type RangeAnalytics, type ValueCount } from './store.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { readStats } from './click-store.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import { csvLine } from '../api/csv.ts';
import { workspaceLink } from '../links/manage-routes.ts';
import { CodeParams, SECURITY } from '../api/schemas.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import { errorResponses as errors } from '../errors.ts';
import { Stats, StatsQuery, WorkspaceStats, WorkspaceStatsQuery } from './schemas.ts';

export interface StatsDeps {
  /** Where links are found (the primary's pool, as the other link routes read them). */
  db: Queryable;
  breaker: DbBreaker;
  /** Where the statistics are read. */
  statsDb: Queryable;
  statsBreaker: DbBreaker;
  shortUrls: ShortUrls;
  /** The dimensions this deployment keeps; none with analytics off. */
  kept: readonly Dimension[];
}

const LIMIT_DEFAULT = 10;
const LIMIT_MAX = 100;
const TOP_LINKS = 10;
const CSV_COLUMNS = ['kind', 'value', 'clicks', 'bot_clicks', 'visitors'];
const CSV = { 200: { description: 'The CSV file.', content: { 'text/csv': { schema: { type: 'string' } } } } };

interface Asked {
  range: DayRange;
  dimensions: Dimension[];
  limit: number;
}

/** The range, dimensions and limit a query asks for; a 400 for any that is not one it may. */
function asked(
  query: { from?: string | undefined; to?: string | undefined; dimensions?: string | undefined; limit?: string | undefined },
  kept: readonly Dimension[],
): Asked {
  const range = statsRange(query.from, query.to, Date.now());
  if (range === undefined) throw new AppError('STATS_RANGE_INVALID');
  let names: string[] = [];
  if (query.dimensions !== undefined && query.dimensions.trim() !== '') names = query.dimensions.split(',').map((name) => name.trim());
  if (names.length === 1 && names[0] === 'all') names = [...DIMENSIONS];
  const unknown = names.find((name) => !isDimension(name));
  if (unknown !== undefined)
    throw new AppError('STATS_QUERY_INVALID', `dimensions: "${unknown.slice(0, 40)}" is none of ${DIMENSIONS.join(', ')} (or all).`);
  const dimensions = kept.filter((dimension) => names.includes(dimension));
  let limit = LIMIT_DEFAULT;
  if (query.limit !== undefined) {
    limit = /^\d{1,3}$/.test(query.limit) ? Number(query.limit) : 0;
    if (limit < 1 || limit > LIMIT_MAX) throw new AppError('STATS_QUERY_INVALID', `limit must be an integer from 1 to ${LIMIT_MAX}.`);
  }
  return { range, dimensions, limit };
}

function dimensionsView(analytics: RangeAnalytics, dimensions: readonly Dimension[]): Record<string, ValueCount[]> {
  return Object.fromEntries(dimensions.map((dimension) => [dimension, analytics.dimensions.get(dimensionId(dimension)) ?? []]));
}

export async function statsRoutes(plain: FastifyInstance, deps: StatsDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { statsDb, statsBreaker, shortUrls, kept } = deps;

  const linkStats = async (request: Parameters<typeof workspaceLink>[0], raw: string, query: StatsQuery) => {
    const { link } = await workspaceLink(request, deps, raw);
    const { range, dimensions, limit } = asked(query, kept);
    const ids = dimensions.map(dimensionId);
    const [stats, analytics] = await Promise.all([
      statsBreaker.run(() => readStats(statsDb, link, range)),
      statsBreaker.run(() => readRollups(statsDb, { link }, range, ids, limit)),
    ]);
    if (stats === undefined) throw new AppError('LINK_NOT_FOUND');
    const visitors = new Map(analytics.daily.map((day) => [day.day, day.visitors]));
    const daily = stats.daily.map((day) => ({ ...day, visitors: visitors.get(day.day) ?? 0 }));
    const sum = (pick: (day: (typeof daily)[number]) => number) => daily.reduce((total, day) => total + pick(day), 0);
    return {
      code: link.code,
      ...range,
      total: stats.total,
      range: { clicks: sum((day) => day.clicks), botClicks: sum((day) => day.botClicks), visitors: analytics.range.visitors },
      daily,
      dimensions: dimensionsView(analytics, dimensions),
      visitorsError: HLL_ERROR,
    };
  };

  // A link's rule 1 is not another's: the workspace has no rows of the link-only dimensions.
  const keptInWorkspaces = kept.filter((dimension) => !LINK_ONLY_DIMENSIONS.includes(dimension));
  const workspaceStats = async (workspaceId: number, query: WorkspaceStatsQuery) => {
    const { range, dimensions, limit } = asked(query, keptInWorkspaces);
    const ids = dimensions.map(dimensionId);
    const [analytics, top, orphans] = await Promise.all([
      statsBreaker.run(() => readRollups(statsDb, { workspaceId }, range, ids, limit)),
      statsBreaker.run(() => readTopLinks(statsDb, workspaceId, range, TOP_LINKS)),
      statsBreaker.run(() => readOrphans(statsDb, workspaceId, range, limit)),
    ]);
    return {
      ...range,
      range: analytics.range,
      daily: analytics.daily,
      dimensions: dimensionsView(analytics, dimensions),
      visitorsError: HLL_ERROR,
      topLinks: top.map((link) => {
        const { domain, shortUrl } = shortUrls.of(link);
        return { code: link.code, domain, shortUrl, url: link.url, title: link.title, clicks: link.clicks, botClicks: link.botClicks };
      }),
      orphans: {
        visits: orphans.visits,
        daily: orphans.daily,
        top: orphans.top.map(({ domainId, domainHost, path, other, visits }) => ({
          domain: shortUrls.of({ domainId, code: '', domainHost }).domain,
          path,
          ...(other === true ? { other } : {}),
          visits,
        })),
      },
    };
  };

  const statsDescription =
    'Clicks are counted in memory and written every CLICK_FLUSH_INTERVAL_MS: the last interval is not in yet. Bots and ' +
    'crawlers (by user agent) are counted apart. Visitors are unique people per day, approximate (HyperLogLog, ' +
    'relative standard error `visitorsError`); over a range, the same person on two days counts on each. ';

  app.get(
    '/links/:code/stats',
    {
      schema: {
        summary: "A link's clicks: totals, per UTC day, and per dimension",
        description: statsDescription + 'Days without clicks are zero.',
        tags: ['stats'],
        security: SECURITY,
        params: CodeParams,
        querystring: StatsQuery,
        response: { 200: Stats, ...errors(400, 401, 404, 503) },
      },
      config: { queryError: 'STATS_QUERY_INVALID' },
    },
    async (request) => linkStats(request, request.params.code, request.query),
  );

  app.get(
    '/links/:code/stats.csv',
    {
      schema: {
        summary: "A link's clicks as a CSV file",
        description: `Columns: ${CSV_COLUMNS.join(', ')}: a \`day\` row per day, then a row per value of each dimension asked for (kind: the dimension).`,
        tags: ['stats'],
        security: SECURITY,
        params: CodeParams,
        querystring: StatsQuery,
        response: { ...CSV, ...errors(400, 401, 404, 503) },
      },
      config: { queryError: 'STATS_QUERY_INVALID' },
    },
    async (request, reply) => {
      const stats = await linkStats(request, request.params.code, request.query);
      return sendCsv(reply, `${stats.code}-${stats.from}-${stats.to}`, [...dayLines(stats.daily), ...valueLines(stats.dimensions)]);
    },
  );

  app.get(
    '/stats',
    {
      schema: {
        summary: "The workspace's clicks: totals, per UTC day, per dimension, its most clicked links, and visits to unknown codes",
        description:
          statsDescription +
          'Orphan visits are requests for codes that named no link on the workspace’s domains (the default domain’s ' +
          'belong to the default workspace). Any key of the workspace.',
        tags: ['stats'],
        security: SECURITY,
        querystring: WorkspaceStatsQuery,
        response: { 200: WorkspaceStats, ...errors(400, 401, 503) },
      },
      config: { queryError: 'STATS_QUERY_INVALID' },
    },
    async (request) => workspaceStats(requireKey(request).workspaceId, request.query),
  );

  app.get(
    '/stats.csv',
    {
      schema: {
        summary: "The workspace's clicks as a CSV file",
        description:
          `Columns: ${CSV_COLUMNS.join(', ')}: a \`day\` row per day, a row per value of each dimension asked for, a \`link\` row ` +
          'per most clicked link (value: its short URL), an `orphan` row per most requested unknown path (visits in clicks).',
        tags: ['stats'],
        security: SECURITY,
        querystring: WorkspaceStatsQuery,
        response: { ...CSV, ...errors(400, 401, 503) },
      },
      config: { queryError: 'STATS_QUERY_INVALID' },
    },
    async (request, reply) => {
      const stats = await workspaceStats(requireKey(request).workspaceId, request.query);
      const lines = [
        ...dayLines(stats.daily),
        ...valueLines(stats.dimensions),
        ...stats.topLinks.map((link) => csvLine(['link', { text: link.shortUrl }, String(link.clicks), String(link.botClicks), ''])),
        ...stats.orphans.top.map((orphan) =>
          csvLine(['orphan', { text: `${orphan.domain}/${orphan.path}` }, String(orphan.visits), '', '']),
        ),
      ];
      return sendCsv(reply, `stats-${stats.from}-${stats.to}`, lines);
    },
  );
}

function dayLines(daily: readonly { day: string; clicks: number; botClicks: number; visitors: number }[]): string[] {
  return daily.map((day) => csvLine(['day', day.day, String(day.clicks), String(day.botClicks), String(day.visitors)]));
}

function valueLines(dimensions: Record<string, ValueCount[]>): string[] {
  return Object.entries(dimensions).flatMap(([dimension, values]) =>
    // Referrer hosts and paths are the clients' text: never a spreadsheet formula.
    values.map((value) =>
      csvLine([dimension, { text: value.value }, String(value.clicks), String(value.botClicks), String(value.visitors)]),
    ),
  );
}

function sendCsv(reply: FastifyReply, name: string, lines: readonly string[]) {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}.csv"`)
    .header('cache-control', 'no-store')
    .send(csvLine(CSV_COLUMNS) + lines.join(''));
}
