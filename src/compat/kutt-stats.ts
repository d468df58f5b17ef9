// Kutt's stats of a link (GET /api/v2/links/:id/stats) from ours (analytics/stats.ts): its periods'
// views and totals from the daily rollups, and their browsers, systems, countries and referrers.

import type { StatsService } from '../analytics/stats.ts';
import type { ValueCount } from '../analytics/stats-store.ts';
import type { Principal } from '../auth/roles.ts';
import { utcDay } from '../core/day-range.ts';
import type { LinkDetails } from '../links/store.ts';

interface KuttPeriod {
  stats: { browser: NameValue[]; os: NameValue[]; country: NameValue[]; referrer: NameValue[] };
  views: number[];
  total: number;
}
interface NameValue {
  name: string;
  value: number;
}

const DAY_MS = 86_400_000;
const KUTT_DIMENSIONS = ['browser', 'os', 'country', 'referrer'] as const;

/**
 * Kutt's periods from our daily rollups: the last day (one bucket: clicks are kept per UTC day, not
 * per hour), week (7 days), month (30) and year (12 calendar months), each with its browsers,
 * systems, countries and referrers; `allTime` is the year (what is kept, ANALYTICS_RETENTION_DAYS).
 */
export async function kuttStats(stats: StatsService, key: Principal, link: LinkDetails) {
  const now = Date.now();
  const today = utcDay(now);
  const query = (days: number) => ({
    from: utcDay(now - (days - 1) * DAY_MS),
    to: today,
    dimensions: KUTT_DIMENSIONS.join(','),
    ...(link.domainHost === null ? {} : { domain: link.domainHost }),
  });
  const [day, week, month, year] = await Promise.all([
    stats.link(key, link.code, query(1)),
    stats.link(key, link.code, query(7)),
    stats.link(key, link.code, query(30)),
    stats.link(key, link.code, query(365)),
  ]);
  const months = new Map<string, number>();
  for (let i = 11; i >= 0; i--) {
    const at = new Date(now);
    at.setUTCDate(1);
    at.setUTCMonth(at.getUTCMonth() - i);
    months.set(at.toISOString().slice(0, 7), 0);
  }
  for (const entry of year.daily) {
    const yearMonth = entry.day.slice(0, 7);
    if (months.has(yearMonth)) months.set(yearMonth, (months.get(yearMonth) ?? 0) + entry.clicks);
  }
  const lastYear = periodOf(year, [...months.values()]);
  return {
    lastDay: periodOf(day, daily(day)),
    lastWeek: periodOf(week, daily(week)),
    lastMonth: periodOf(month, daily(month)),
    lastYear,
    allTime: lastYear,
    updatedAt: new Date(now).toISOString(),
  };
}

type StatsAnswer = Awaited<ReturnType<StatsService['link']>>;

/** One of Kutt's periods: its dimensions (browsers and systems lower-cased, as Kutt names them), views and total. */
function periodOf(answer: StatsAnswer, views: number[]): KuttPeriod {
  const dimensions = answer.dimensions as Readonly<Record<string, readonly ValueCount[] | undefined>>;
  const named = (dimension: (typeof KUTT_DIMENSIONS)[number]): NameValue[] =>
    (dimensions[dimension] ?? [])
      .filter((value) => value.other !== true)
      .map((value) => ({
        name: dimension === 'browser' || dimension === 'os' ? value.value.toLowerCase() : value.value,
        value: value.clicks,
      }));
  return {
    stats: { browser: named('browser'), os: named('os'), country: named('country'), referrer: named('referrer') },
    views,
    total: answer.range.clicks,
  };
}

function daily(answer: StatsAnswer): number[] {
  return answer.daily.map((entry) => entry.clicks);
}
