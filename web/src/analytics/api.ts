// The stats routes of the API: one link's clicks in a period, the whole workspace's, and the same as CSV files.
import type { Static } from 'typebox';
import type * as schema from '../../../src/analytics/schemas.ts';
import type { DIMENSIONS as SERVER_DIMENSIONS, Dimension } from '../../../src/core/dimensions.ts';
import * as sdk from '../../../src/client/operations.ts';
import type { Api } from '../api/client.ts';
import { linkPath, linkRequest, type LinkKey } from '../links/link-key.ts';

/** What a click is counted by, besides its day, in the order the views show them; the operator may switch any of them off. */
export const DIMENSIONS = [
  'referrer',
  'country',
  'city',
  'device',
  'browser',
  'os',
  'language',
  'source',
  'target',
] as const satisfies typeof SERVER_DIMENSIONS;
export type { Dimension };

/** One link's numbers in a period, and its clicks of all time. */
export type Stats = Static<typeof schema.Stats>;
/** The whole workspace's numbers in a period, its most clicked links and its orphan visits. */
export type WorkspaceStats = Static<typeof schema.WorkspaceStats>;
/** What the two share: a period's numbers, of one value when `filter` says so. */
export type RangeStats = Pick<Stats, 'from' | 'to' | 'range' | 'daily' | 'dimensions' | 'visitorsError' | 'filter'> & {
  tag?: NonNullable<WorkspaceStats['tag']>;
};
/** Clicks by people and by bots, and the approximate number of people behind them. */
export type Counts = Stats['range'];
export type DailyClicks = Stats['daily'][number];
/** The dimensions the operator has on, each most clicked first. */
export type Breakdown = Stats['dimensions'];
/** One value of a dimension (a country, a referrer's host…); `other` is the bucket of values past what is kept apart. */
export type DimensionValue = Breakdown[string][number];
export type TopLink = WorkspaceStats['topLinks'][number];
/** Requests for a code or path that no link of the workspace's domains has; `other` sums the paths past those kept apart. */
export type OrphanPath = WorkspaceStats['orphans']['top'][number];

/** A period's numbers as the dashboard asks for them: the API's query parameters, in its own types. */
export type StatsQuery = Required<Pick<Static<typeof schema.StatsQuery>, 'from' | 'to'>> & {
  /** 'all': every dimension the operator has on. */
  dimensions: 'all' | readonly Dimension[];
  /** Values per dimension (and links of a workspace), 1 to 100. */
  limit: number;
  /** A drill-down and a tag (the workspace's only), as drill.ts makes them. */
  filter?: Record<string, string>;
};

export async function getStats(api: Api, link: LinkKey, query: StatsQuery, signal?: AbortSignal): Promise<Stats> {
  const { path, query: onDomain } = linkRequest(link);
  const statsQuery = { ...statsParams(query), ...onDomain };
  const { data } = await sdk.getLinksByCodeStats({
    client: api.client,
    throwOnError: true,
    path,
    query: statsQuery,
    signal: signal ?? null,
  });
  return data;
}

export async function getWorkspaceStats(api: Api, query: StatsQuery, signal?: AbortSignal): Promise<WorkspaceStats> {
  const { data } = await sdk.getStats({ client: api.client, throwOnError: true, query: statsParams(query), signal: signal ?? null });
  return data;
}

function statsParams(query: StatsQuery): Record<string, string> {
  const dimensions = query.dimensions === 'all' ? 'all' : query.dimensions.join(',');
  return { from: query.from, to: query.to, ...(dimensions === '' ? {} : { dimensions }), limit: String(query.limit), ...query.filter };
}

/** The CSV of a period's numbers: of one link, or of the whole workspace when `link` is null. */
export function statsCsvHref(link: LinkKey | null, query: StatsQuery): string {
  return link === null ? `/stats.csv?${new URLSearchParams(statsParams(query))}` : linkPath(link, '/stats.csv', statsParams(query));
}
