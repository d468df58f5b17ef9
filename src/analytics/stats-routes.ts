// Click statistics: a link's (GET /links/:code/stats) and its workspace's (GET /stats), each also
// as a CSV file. What they hold is the service's (stats.ts); here each request is read, handed
// on, and its answer shaped.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { csvLine } from '../api/csv.ts';
import { CodeParams, SECURITY } from '../api/schemas.ts';
import { requireKey } from '../auth/authenticate.ts';
import { errorResponses as errors } from '../errors.ts';
import { Stats, StatsQuery, WorkspaceStats, WorkspaceStatsQuery } from './schemas.ts';
import type { StatsService } from './stats.ts';
import type { ValueCount } from './stats-store.ts';

const CSV_COLUMNS = ['kind', 'value', 'clicks', 'bot_clicks', 'visitors'];
const CSV = { 200: { description: 'The CSV file.', content: { 'text/csv': { schema: { type: 'string' } } } } };

export async function statsRoutes(plain: FastifyInstance, { stats: service }: { stats: StatsService }): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();

  const statsDescription =
    'Clicks are counted in memory and written every CLICK_FLUSH_INTERVAL_MS: the last interval is not in yet. Bots and ' +
    'crawlers (by user agent) are counted apart. Visitors are unique people per day, approximate (HyperLogLog, ' +
    'relative standard error `visitorsError`); over a range, the same person on two days counts on each. ' +
    '`dimension` and `value` drill down to the clicks of one value (its days, its share of all: `filter`); no raw click is kept, ' +
    'so the other dimensions cannot be narrowed to it and are not answered. ';

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
    async function linkStats(request) {
      return service.link(requireKey(request), request.params.code, request.query);
    },
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
    async function linkStatsCsv(request, reply) {
      const stats = await service.link(requireKey(request), request.params.code, request.query);
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
          'belong to the default workspace). `tag` sums the rollups of the links with that tag instead (at most the 100 most ' +
          'clicked of all time: `tag.counted`); orphan visits stay the workspace’s. Any key of the workspace.',
        tags: ['stats'],
        security: SECURITY,
        querystring: WorkspaceStatsQuery,
        response: { 200: WorkspaceStats, ...errors(400, 401, 503) },
      },
      config: { queryError: 'STATS_QUERY_INVALID' },
    },
    async function workspaceStats(request) {
      return service.workspace(requireKey(request).workspaceId, request.query);
    },
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
    async function workspaceStatsCsv(request, reply) {
      const stats = await service.workspace(requireKey(request).workspaceId, request.query);
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
