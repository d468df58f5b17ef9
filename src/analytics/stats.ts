// Click statistics of a link and of a workspace, as the stats routes answer them: the range,
// dimensions and limit a query asks for (400 for any it may not), clicks per day from the daily
// counts, unique visitors and each dimension's values from the rollups (stats-store.ts). A query
// may drill down to one value of a dimension, and a workspace's narrow to the links of a tag
// (docs/api.md#click-analytics says what either can answer).

import type { Principal } from '../auth/roles.ts';
import { statsRange, type DayRange } from '../core/day-range.ts';
import { DIMENSIONS, dimensionId, isDimension, LINK_ONLY_DIMENSIONS, type Dimension } from '../core/dimensions.ts';
import { HLL_ERROR } from '../core/hll.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import { AppError } from '../errors.ts';
import type { WorkspaceLinks } from '../links/workspace-links.ts';
import { codePoints } from '../core/field-values.ts';
import { TAG_MAX_LENGTH, type LinkRef } from '../core/link.ts';
import type { TopLink, ValueFilter } from './link-sets.ts';
import type { StatsQuery, WorkspaceStatsQuery } from './schemas.ts';
import type { RangeAnalytics, RollupOwner, StatsStore, ValueCount } from './stats-store.ts';

export interface StatsDeps {
  readonly store: StatsStore;
  /** Where a link is found in the request's workspace. */
  readonly links: Pick<WorkspaceLinks, 'find'>;
  readonly shortUrls: Pick<ShortUrls, 'of'>;
  /** The dimensions this deployment keeps; none with analytics off. */
  readonly kept: readonly Dimension[];
}

const LIMIT_DEFAULT = 10;
/** Values per dimension a stats read may ask for. */
export const LIMIT_MAX = 100;
const TOP_LINKS = 10;
/**
 * A tag's links summed, at most (its most clicked of all time): each costs an index range scan of
 * its rollups over the range, one row per day and value of each dimension asked for.
 */
export const TAG_LINKS_MAX = 100;
/** A drill-down's top links of a workspace are sought among its this many most clicked links of the range. */
export const TOP_LINKS_SCANNED = 200;
/** Longest value a drill-down may name: the rollups keep at most 256 bytes. */
const VALUE_MAX_BYTES = 256;

interface Asked {
  range: DayRange;
  dimensions: Dimension[];
  limit: number;
  /** A drill-down: one value of one dimension. */
  only: (ValueFilter & { name: Dimension }) | undefined;
}

interface Query {
  from?: string | undefined;
  to?: string | undefined;
  dimensions?: string | undefined;
  limit?: string | undefined;
  dimension?: string | undefined;
  value?: string | undefined;
}

/** The range, dimensions, limit and drill-down a query asks for; a 400 for any that is not one it may. */
function asked(query: Query, kept: readonly Dimension[], keptAnywhere: readonly Dimension[]): Asked {
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
  return { range, dimensions, limit, only: drillDown(query, kept, keptAnywhere) };
}

/** The value a query drills down to, if any: `dimension` and `value` together, of a dimension counted here. */
function drillDown(query: Query, kept: readonly Dimension[], keptAnywhere: readonly Dimension[]): Asked['only'] {
  const { dimension, value } = query;
  if (dimension === undefined && value === undefined) return undefined;
  if (dimension === undefined || value === undefined)
    throw new AppError('STATS_QUERY_INVALID', 'dimension and value go together: give both to drill down, or neither.');
  if (!isDimension(dimension))
    throw new AppError('STATS_QUERY_INVALID', `dimension: "${dimension.slice(0, 40)}" is none of ${DIMENSIONS.join(', ')}.`);
  if (!keptAnywhere.includes(dimension))
    throw new AppError('STATS_QUERY_INVALID', `dimension: this service does not count clicks by ${dimension} (ANALYTICS_DIMENSIONS).`);
  if (!kept.includes(dimension))
    throw new AppError('STATS_QUERY_INVALID', `dimension: ${dimension} is counted per link only (one link's rule 1 is not another's).`);
  if (value === '' || Buffer.byteLength(value) > VALUE_MAX_BYTES)
    throw new AppError('STATS_QUERY_INVALID', `value must be 1 to ${VALUE_MAX_BYTES} bytes: a value of ${dimension} as the stats name it.`);
  return { name: dimension, dimension: dimensionId(dimension), value };
}

/** The tag a workspace query narrows to, if any. */
function taggedWith(tag: string | undefined): string | undefined {
  if (tag === undefined) return undefined;
  const trimmed = tag.trim();
  if (trimmed === '' || codePoints(trimmed) > TAG_MAX_LENGTH)
    throw new AppError('STATS_QUERY_INVALID', `tag must be 1 to ${TAG_MAX_LENGTH} characters.`);
  return trimmed;
}

type Counts = RangeAnalytics['range'];

/** A drill-down's place in the answer: the value, all the clicks of the view, and the value's share of them. */
function filterView(only: NonNullable<Asked['only']>, of: Counts, value: Counts) {
  const all = of.clicks + of.botClicks;
  return { dimension: only.name, value: only.value, of, share: all === 0 ? 0 : (value.clicks + value.botClicks) / all };
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
    const { range, dimensions, limit, only } = asked(query, kept, kept);
    // A drill-down answers no other dimension: they cannot be narrowed to its value.
    const ids = only === undefined ? dimensions.map(dimensionId) : [];
    const [stats, analytics, ofValue] = await Promise.all([
      store.clicks(link, range),
      store.rollups({ link }, range, ids, limit),
      only === undefined ? undefined : store.rollups({ link }, range, [], limit, only),
    ]);
    if (stats === undefined) throw new AppError('LINK_NOT_FOUND');
    const visitors = new Map(analytics.daily.map((day) => [day.day, day.visitors]));
    const daily = stats.daily.map((day) => ({ ...day, visitors: visitors.get(day.day) ?? 0 }));
    const sum = (pick: (day: (typeof daily)[number]) => number) => daily.reduce((total, day) => total + pick(day), 0);
    const all = { clicks: sum((day) => day.clicks), botClicks: sum((day) => day.botClicks), visitors: analytics.range.visitors };
    const answer = { code: link.code, ...range, total: stats.total, visitorsError: HLL_ERROR };
    if (only === undefined || ofValue === undefined) {
      return { ...answer, range: all, daily, dimensions: dimensionsView(analytics, dimensions) };
    }
    return { ...answer, range: ofValue.range, daily: ofValue.daily, dimensions: {}, filter: filterView(only, all, ofValue.range) };
  }

  /** The stats of a workspace, with its most clicked links and its orphan visits. */
  async workspace(workspaceId: number, query: WorkspaceStatsQuery) {
    const { store, shortUrls, kept } = this.#deps;
    const { range, dimensions, limit, only } = asked(query, this.#keptInWorkspaces, kept);
    const tag = taggedWith(query.tag);
    const tagged = tag === undefined ? undefined : await store.tagLinks(workspaceId, tag, TAG_LINKS_MAX);
    const owner: RollupOwner = tagged === undefined ? { workspaceId } : { links: tagged.links };
    const ids = only === undefined ? dimensions.map(dimensionId) : [];
    const [analytics, ofValue, top, orphans] = await Promise.all([
      store.rollups(owner, range, ids, limit),
      only === undefined ? undefined : store.rollups(owner, range, [], limit, only),
      this.#topLinks(workspaceId, range, tagged?.links, only),
      store.orphans(workspaceId, range, limit),
    ]);
    const shown = ofValue ?? analytics;
    return {
      ...range,
      range: shown.range,
      daily: shown.daily,
      dimensions: only === undefined ? dimensionsView(analytics, dimensions) : {},
      visitorsError: HLL_ERROR,
      ...(only === undefined || ofValue === undefined ? {} : { filter: filterView(only, analytics.range, ofValue.range) }),
      ...(tag === undefined || tagged === undefined ? {} : { tag: { tag, links: tagged.total, counted: tagged.links.length } }),
      ...(only !== undefined && tagged === undefined ? { topLinksAmong: TOP_LINKS_SCANNED } : {}),
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

  /**
   * The most clicked links: of the workspace (daily counts), of a tag's links, or of one value (the
   * links' rollups): a workspace's then among its TOP_LINKS_SCANNED most clicked, a bound on the read.
   */
  async #topLinks(
    workspaceId: number,
    range: DayRange,
    tagged: readonly LinkRef[] | undefined,
    only: ValueFilter | undefined,
  ): Promise<TopLink[]> {
    const { store } = this.#deps;
    if (tagged !== undefined) return store.topLinksOf(tagged, range, only, TOP_LINKS);
    if (only === undefined) return store.topLinks(workspaceId, range, TOP_LINKS);
    const candidates = await store.topLinks(workspaceId, range, TOP_LINKS_SCANNED);
    const refs = candidates.map((link) => ({ domainId: link.domainId, code: link.code as LinkRef['code'] }));
    return store.topLinksOf(refs, range, only, TOP_LINKS);
  }
}
