// Dub's GET /analytics from our stats (analytics/stats.ts): clicks only (we count no leads or
// sales), of one link or of the workspace, over the UTC days a Dub interval touches (clicks are kept
// per UTC day), grouped as Dub groups them where our rollups hold that grouping. What they do not
// hold (regions, cities of Dub's shape, UTM values, partners, folders, hourly buckets) is refused.

import type { StatsService } from '../analytics/stats.ts';
import type { ValueCount } from '../analytics/stats-store.ts';
import type { Principal } from '../auth/roles.ts';
import { utcDay } from '../core/day-range.ts';
import { AppError } from '../errors.ts';

const DAY_MS = 86_400_000;

/** Dub's groupings we answer, each with the dimension of ours it reads and the field Dub names the value by. */
const GROUPINGS = {
  countries: { dimension: 'country', field: 'country' },
  devices: { dimension: 'device', field: 'device' },
  browsers: { dimension: 'browser', field: 'browser' },
  os: { dimension: 'os', field: 'os' },
  referers: { dimension: 'referrer', field: 'referer' },
} as const;
type Grouping = keyof typeof GROUPINGS;

/** Query parameters that only choose what we answer anyway. */
const TAKEN = new Set(['event', 'groupBy', 'interval', 'start', 'end', 'timezone', 'linkId', 'domain', 'key', 'tagId', 'tagIds']);

export interface DubAnalyticsQuery {
  readonly groupBy: 'count' | 'timeseries' | 'top_links' | Grouping;
  readonly from: string;
  readonly to: string;
  /** One tag's links, for the workspace's analytics. */
  readonly tag: string | undefined;
}

function refuse(message: string): AppError {
  return new AppError('STATS_QUERY_INVALID', message);
}

/** The first UTC day of Dub's `interval` (default 24h) ending now: the days the interval's window touches. */
function firstDay(interval: string, now: number): string {
  const days: Readonly<Record<string, number>> = { '24h': 1, '7d': 7, '30d': 30, '90d': 90, '1y': 365, all: 366 };
  const back = days[interval];
  if (back !== undefined) return utcDay(now - back * DAY_MS);
  const today = new Date(now);
  const year = today.getUTCFullYear();
  if (interval === 'mtd') return utcDay(Date.UTC(year, today.getUTCMonth(), 1));
  if (interval === 'qtd') return utcDay(Date.UTC(year, today.getUTCMonth() - (today.getUTCMonth() % 3), 1));
  if (interval === 'ytd') return utcDay(Date.UTC(year, 0, 1));
  throw refuse(`interval must be one of 24h, 7d, 30d, 90d, 1y, mtd, qtd, ytd, all.`);
}

function dayOf(raw: string, field: string): string {
  const at = Date.parse(raw);
  if (!Number.isFinite(at)) throw refuse(`${field} must be a date or a date-time (ISO 8601).`);
  return utcDay(at);
}

/** What Dub's query asks of our stats; a 422 for what they cannot answer honestly. */
export function readAnalyticsQuery(query: Record<string, unknown>, now = Date.now()): DubAnalyticsQuery {
  for (const [name, value] of Object.entries(query)) {
    if (typeof value !== 'string') throw refuse(`${name} is given more than once.`);
    if (!TAKEN.has(name)) throw refuse(`${name}: analytics here are not filtered by ${name} (see docs/compat.md#dub).`);
  }
  const param = (name: string) => query[name] as string | undefined;
  const event = param('event') ?? 'clicks';
  if (event !== 'clicks') throw refuse(`event: only clicks are counted here, not ${event.slice(0, 40)}.`);
  const groupBy = param('groupBy') ?? 'count';
  if (groupBy !== 'count' && groupBy !== 'timeseries' && groupBy !== 'top_links' && !(groupBy in GROUPINGS))
    throw refuse(
      `groupBy: ${groupBy.slice(0, 40)} is not served; count, timeseries, countries, devices, browsers, os, referers and top_links are.`,
    );
  const timezone = param('timezone');
  if (timezone !== undefined && timezone !== 'UTC' && timezone !== 'Etc/UTC')
    throw refuse('timezone: clicks are kept per UTC day; leave timezone out or give UTC.');
  const start = param('start');
  const end = param('end');
  const to = end === undefined ? utcDay(now) : dayOf(end, 'end');
  const from = start === undefined ? firstDay(param('interval') ?? '24h', now) : dayOf(start, 'start');
  const tagIds =
    param('tagIds')
      ?.split(',')
      .filter((tag) => tag !== '') ?? [];
  const tags = [...new Set([...tagIds, ...(param('tagId') === undefined ? [] : [param('tagId') as string])])];
  if (tags.length > 1) throw refuse('tagIds: one tag at a time here.');
  return { groupBy: groupBy as DubAnalyticsQuery['groupBy'], from, to, tag: tags[0] };
}

/** The link's or the workspace's answer of our stats service. */
type LinkAnswer = Awaited<ReturnType<StatsService['link']>>;
type WorkspaceAnswer = Awaited<ReturnType<StatsService['workspace']>>;

/** Our answer for what Dub asked. `link`: one link's (its code and domain), else the workspace's. */
export async function statsFor(
  stats: StatsService,
  key: Principal,
  asked: DubAnalyticsQuery,
  link: { code: string; host: string | null } | undefined,
): Promise<LinkAnswer | WorkspaceAnswer> {
  const grouping = asked.groupBy in GROUPINGS ? GROUPINGS[asked.groupBy as Grouping] : undefined;
  const query = { from: asked.from, to: asked.to, limit: '100', ...(grouping === undefined ? {} : { dimensions: grouping.dimension }) };
  if (link !== undefined) {
    if (asked.groupBy === 'top_links') throw refuse('groupBy: top_links is for a workspace, not one link.');
    return stats.link(key, link.code, { ...query, ...(link.host === null ? {} : { domain: link.host }) });
  }
  return stats.workspace(key.workspaceId, { ...query, ...(asked.tag === undefined ? {} : { tag: asked.tag }) });
}

/** Dub's answer for count, timeseries and the groupings (top_links is the routes', which know links). */
export function dubAnalytics(asked: DubAnalyticsQuery, answer: LinkAnswer | WorkspaceAnswer): unknown {
  // People's clicks: bots are counted apart here, and Dub leaves them out too.
  if (asked.groupBy === 'count') return { clicks: answer.range.clicks };
  if (asked.groupBy === 'timeseries')
    return answer.daily.map((day: { day: string; clicks: number }) => ({ start: `${day.day}T00:00:00.000Z`, clicks: day.clicks }));
  const grouping = GROUPINGS[asked.groupBy as Grouping];
  const values = (answer.dimensions as Readonly<Record<string, readonly ValueCount[] | undefined>>)[grouping.dimension] ?? [];
  return values
    .filter((value) => value.other !== true && value.clicks > 0)
    .map((value) => ({
      [grouping.field]: value.value,
      ...(grouping.field === 'country' ? { region: '*', city: '*' } : {}),
      clicks: value.clicks,
    }));
}
