// Bitly's click metrics of a bitlink (GET /v4/bitlinks/{bitlink}/clicks, /clicks/summary,
// /countries, /referrers, /referring_domains) from ours (analytics/stats.ts). Clicks are kept per
// UTC day, so Bitly's units are days, weeks and months; minutes and hours are refused.

import type { StatsService } from '../analytics/stats.ts';
import type { ValueCount } from '../analytics/stats-store.ts';
import type { Principal } from '../auth/roles.ts';
import { STATS_MAX_DAYS, utcDay } from '../core/day-range.ts';
import { AppError } from '../errors.ts';
import type { LinkDetails } from '../links/store.ts';

const DAY_MS = 86_400_000;
const UNITS = ['day', 'week', 'month'] as const;
type Unit = (typeof UNITS)[number];
/** The most units of each that fit in one stats read (STATS_MAX_DAYS). */
const UNITS_MAX: Readonly<Record<Unit, number>> = { day: STATS_MAX_DAYS, week: Math.floor(STATS_MAX_DAYS / 7), month: 12 };
/** Bitly's facets, as our dimensions: referrers and referring domains are both the referrer's host (the path is never kept). */
export const FACETS = { countries: 'country', referrers: 'referrer', referring_domains: 'referrer' } as const;
export type Facet = keyof typeof FACETS;
const SIZE_DEFAULT = 50;
/** Our stats' longest list of values. */
const SIZE_MAX = 100;

/** A metrics query's buckets: the days they span, oldest first, and the bucket each day falls in. */
interface Buckets {
  readonly unit: Unit;
  readonly units: number;
  readonly reference: Date;
  /** The first day of each bucket, newest first (as Bitly lists them). */
  readonly starts: string[];
  readonly from: string;
  readonly to: string;
}

/** Bitly's unit, units and unit_reference as days: `units` -1 (Bitly's "all") is every unit since the link was created. */
function bucketsOf(query: Record<string, unknown>, link: LinkDetails, now = Date.now()): Buckets {
  const unitName = param(query.unit) ?? 'day';
  if (!(UNITS as readonly string[]).includes(unitName))
    throw new AppError('STATS_QUERY_INVALID', 'unit: clicks are kept per UTC day; ask for day, week or month.', { field: 'unit' });
  const unit = unitName as Unit;
  const referenceText = param(query.unit_reference);
  const reference = referenceText === undefined ? new Date(now) : new Date(referenceText);
  if (Number.isNaN(reference.getTime()))
    throw new AppError('STATS_QUERY_INVALID', 'unit_reference must be an ISO-8601 timestamp.', { field: 'unit_reference' });
  const unitsText = param(query.units) ?? '-1';
  if (!/^(-1|\d{1,4})$/.test(unitsText) || unitsText === '0')
    throw new AppError('STATS_QUERY_INVALID', 'units must be -1 (all) or a positive integer.', { field: 'units' });
  const asked = Number(unitsText);
  if (asked > UNITS_MAX[unit])
    throw new AppError('STATS_QUERY_INVALID', `units: at most ${UNITS_MAX[unit]} ${unit}s (a year of clicks per read).`, {
      field: 'units',
    });
  const starts = unitStarts(unit, reference.getTime(), link.createdAt.getTime(), asked);
  return { unit, units: asked, reference, starts, from: starts.at(-1) ?? utcDay(reference.getTime()), to: utcDay(reference.getTime()) };
}

/** The first days of the last `units` buckets up to `reference`, newest first; -1: back to the bucket the link was created in. */
function unitStarts(unit: Unit, reference: number, created: number, units: number): string[] {
  const starts: string[] = [];
  const max = units === -1 ? UNITS_MAX[unit] : Math.min(units, UNITS_MAX[unit]);
  const createdDay = utcDay(created);
  for (let i = 0; i < max; i++) {
    let start: string;
    if (unit === 'day') start = utcDay(reference - i * DAY_MS);
    else if (unit === 'week') start = utcDay(reference - (i * 7 + 6) * DAY_MS);
    else {
      const at = new Date(reference);
      at.setUTCDate(1);
      at.setUTCMonth(at.getUTCMonth() - i);
      start = utcDay(at.getTime());
    }
    starts.push(start);
    if (units === -1 && start <= createdDay) break;
  }
  return starts;
}

/** Bitly's timestamps: 2020-05-26T00:00:00+0000. */
export function bitlyTime(at: Date | string): string {
  const iso = typeof at === 'string' ? `${at}T00:00:00.000Z` : at.toISOString();
  return iso.replace(/\.\d{3}Z$/, '+0000');
}

function header(buckets: Buckets) {
  return { unit_reference: bitlyTime(buckets.reference), unit: buckets.unit, units: buckets.units };
}

function param(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new AppError('STATS_QUERY_INVALID', 'Give each query parameter once.');
  return value;
}

function rangeQuery(link: LinkDetails, buckets: Buckets, dimensions: string, limit?: number) {
  return {
    from: buckets.from,
    to: buckets.to,
    dimensions,
    ...(limit === undefined ? {} : { limit: String(limit) }),
    ...(link.domainHost === null ? {} : { domain: link.domainHost }),
  };
}

/** GET /clicks: clicks per unit, newest first. */
export async function linkClicks(stats: StatsService, key: Principal, link: LinkDetails, query: Record<string, unknown>) {
  const { buckets, perStart } = await clicksIn(stats, key, link, query);
  return { ...header(buckets), link_clicks: buckets.starts.map((start) => ({ date: bitlyTime(start), clicks: perStart.get(start) ?? 0 })) };
}

/** GET /clicks/summary: the clicks of the units asked, in all. */
export async function linkClicksSummary(stats: StatsService, key: Principal, link: LinkDetails, query: Record<string, unknown>) {
  const { buckets, total } = await clicksIn(stats, key, link, query);
  return { ...header(buckets), total_clicks: total };
}

async function clicksIn(stats: StatsService, key: Principal, link: LinkDetails, query: Record<string, unknown>) {
  const buckets = bucketsOf(query, link);
  const answer = await stats.link(key, link.code, rangeQuery(link, buckets, ''));
  const perStart = new Map(buckets.starts.map((start) => [start, 0]));
  for (const entry of answer.daily) {
    // The bucket of a day: the newest start not after it.
    const start = buckets.starts.find((first) => first <= entry.day);
    if (start !== undefined) perStart.set(start, (perStart.get(start) ?? 0) + entry.clicks);
  }
  return { buckets, perStart, total: answer.range.clicks };
}

/** GET /countries, /referrers, /referring_domains: the facet's values over the units asked, most clicked first. */
export async function linkFacet(stats: StatsService, key: Principal, link: LinkDetails, facet: Facet, query: Record<string, unknown>) {
  const buckets = bucketsOf(query, link);
  const sizeText = param(query.size);
  if (sizeText !== undefined && !/^[1-9]\d{0,3}$/.test(sizeText))
    throw new AppError('STATS_QUERY_INVALID', 'size must be a positive integer.', { field: 'size' });
  const size = Math.min(SIZE_MAX, sizeText === undefined ? SIZE_DEFAULT : Number(sizeText));
  const dimension = FACETS[facet];
  const answer = await stats.link(key, link.code, rangeQuery(link, buckets, dimension, size));
  const values = (answer.dimensions as Readonly<Record<string, readonly ValueCount[] | undefined>>)[dimension] ?? [];
  return {
    ...header(buckets),
    facet,
    metrics: values.filter((value) => value.other !== true).map((value) => ({ value: value.value, clicks: value.clicks })),
  };
}
