// The stats routes of the API: one link's clicks in a period, the whole workspace's, and the same as CSV files.
import type { Api } from '../api/client.ts';
import { linkPath, type LinkKey } from '../links/link-key.ts';

/** What a click is counted by, besides its day; the operator may switch any of them off (and `city` is off without a city database). */
export const DIMENSIONS = ['referrer', 'country', 'city', 'device', 'browser', 'os', 'language', 'source', 'target'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Clicks by people and by bots, and the approximate number of people behind them. */
export interface Counts {
  clicks: number;
  botClicks: number;
  visitors: number;
}

export interface DailyClicks extends Counts {
  day: string;
}

/** One value of a dimension (a country, a referrer's host…); `other` is the bucket of values past what is kept apart. */
export interface DimensionValue extends Counts {
  value: string;
  other?: boolean;
}

/** The requested dimensions the operator has on, each most clicked first. */
export type Breakdown = Partial<Record<Dimension, DimensionValue[]>>;

export interface StatsQuery {
  from: string;
  to: string;
  /** 'all': every dimension the operator has on. */
  dimensions: 'all' | readonly Dimension[];
  /** Values per dimension (and links of a workspace), 1 to 100. */
  limit: number;
}

/** A period's numbers, for one link or a whole workspace. */
export interface RangeStats {
  from: string;
  to: string;
  range: Counts;
  daily: DailyClicks[];
  dimensions: Breakdown;
  /** The relative standard error of every visitor count (0.0163: about ±1.6 %). */
  visitorsError: number;
}

export interface Stats extends RangeStats {
  code: string;
  /** Every click the link ever had. */
  total: { clicks: number; botClicks: number };
}

export interface TopLink {
  code: string;
  /** The host of the link's domain (the default domain's too, as in a link's view). */
  domain: string;
  shortUrl: string;
  url: string;
  title: string | null;
  clicks: number;
  botClicks: number;
}

/** Requests for a code or path that no link of the workspace's domains has; `other` sums the paths past those kept apart. */
export interface OrphanPath {
  /** The host of the domain it was asked on. */
  domain: string;
  path: string;
  other?: boolean;
  visits: number;
}

export interface WorkspaceStats extends RangeStats {
  topLinks: TopLink[];
  orphans: { visits: number; daily: { day: string; visits: number }[]; top: OrphanPath[] };
}

export function getStats(api: Api, link: LinkKey, query: StatsQuery, signal?: AbortSignal): Promise<Stats> {
  return api.request<Stats>(linkPath(link, '/stats', statsParams(query)), { signal });
}

export function getWorkspaceStats(api: Api, query: StatsQuery, signal?: AbortSignal): Promise<WorkspaceStats> {
  return api.request<WorkspaceStats>(`/stats?${new URLSearchParams(statsParams(query))}`, { signal });
}

function statsParams(query: StatsQuery): Record<string, string> {
  const dimensions = query.dimensions === 'all' ? 'all' : query.dimensions.join(',');
  return { from: query.from, to: query.to, ...(dimensions === '' ? {} : { dimensions }), limit: String(query.limit) };
}

/** The CSV of a period's numbers: of one link, or of the whole workspace when `link` is null. */
export function statsCsvHref(link: LinkKey | null, query: StatsQuery): string {
  return link === null ? `/stats.csv?${new URLSearchParams(statsParams(query))}` : linkPath(link, '/stats.csv', statsParams(query));
}
