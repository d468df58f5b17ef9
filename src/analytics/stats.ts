// Click statistics of a link and of a workspace, as the stats routes answer them: the range,
// dimensions and limit a query asks for (400 for any it may not), clicks per day from the daily
// counts, unique visitors and each dimension's values from the rollups (stats-store.ts).

import type { Principal } from '../auth/roles.ts';
import { statsRange, type DayRange } from '../core/day-range.ts';
import { DIMENSIONS, dimensionId, isDimension, LINK_ONLY_DIMENSIONS, type Dimension } from '../core/dimensions.ts';
import { HLL_ERROR } from '../core/hll.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import { AppError } from '../errors.ts';
import type { WorkspaceLinks } from '../links/workspace-links.ts';
import type { StatsQuery, WorkspaceStatsQuery } from './schemas.ts';
import type { RangeAnalytics, StatsStore, ValueCount } from './stats-store.ts';

export interface StatsDeps {
  readonly store: StatsStore;
  /** Where a link is found in the request's workspace. */
  readonly links: Pick<WorkspaceLinks, 'find'>;
  readonly shortUrls: Pick<ShortUrls, 'of'>;
  /** The dimensions this deployment keeps; none with analytics off. */
  readonly kept: readonly Dimension[];
}

const LIMIT_DEFAULT = 10;
const LIMIT_MAX = 100;
const TOP_LINKS = 10;

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

export class StatsService {
  readonly #deps: StatsDeps;
  /** A link's rule 1 is not another's: the workspace has no rows of the link-only dimensions. */
  readonly #keptInWorkspaces: readonly Dimension[];

  constructor(deps: StatsDeps) {
    this.#deps = deps;
    this.#keptInWorkspaces = deps.kept.filter((dimension) => !LINK_ONLY_DIMENSIONS.includes(dimension));
  }

  /** The stats of the link `code` on the domain the query names, in `key`'s workspace. */
  async link(key: Principal, code: string, query: StatsQuery) {
    const { store, links, kept } = this.#deps;
    const link = await links.find(key, query.domain, code);
    const { range, dimensions, limit } = asked(query, kept);
    const ids = dimensions.map(dimensionId);
    const [stats, analytics] = await Promise.all([store.clicks(link, range), store.rollups({ link }, range, ids, limit)]);
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
  }

  /** The stats of a workspace, with its most clicked links and its orphan visits. */
  async workspace(workspaceId: number, query: WorkspaceStatsQuery) {
    const { store, shortUrls } = this.#deps;
    const { range, dimensions, limit } = asked(query, this.#keptInWorkspaces);
    const ids = dimensions.map(dimensionId);
    const [analytics, top, orphans] = await Promise.all([
      store.rollups({ workspaceId }, range, ids, limit),
      store.topLinks(workspaceId, range, TOP_LINKS),
      store.orphans(workspaceId, range, limit),
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
  }
}
