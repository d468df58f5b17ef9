import { useState } from 'preact/hooks';
import { useLoad } from '../shared/use-load.ts';
import { CSV_VALUES, SHOWN_VALUES, type DayRange } from './analytics.ts';
import type { RangeStats, StatsQuery } from './api.ts';
import { answers, filterKey, filterParams, NO_FILTER, type ViewFilter } from './drill.ts';
import { defaultRange } from './RangePicker.tsx';

/**
 * A period's numbers (of a link, or of the workspace), narrowed by `filter`, read again whenever the period or the
 * filter changes (`key` names the request); the last answer stays on screen meanwhile, marked `loading`.
 */
export function usePeriodStats<S extends RangeStats>(
  read: (query: StatsQuery, signal: AbortSignal) => Promise<S>,
  key: (range: DayRange) => string,
  filter: ViewFilter = NO_FILTER,
) {
  const [range, setRange] = useState<DayRange>(defaultRange);
  const query: StatsQuery = { ...range, dimensions: 'all', limit: SHOWN_VALUES, filter: filterParams(filter) };
  const loaded = useLoad((signal) => read(query, signal), `${key(range)}\n${filterKey(filter)}`);
  const stats = loaded.data;
  return {
    ...loaded,
    setRange,
    /** The CSV file's query: the same period, with up to the API's most values. */
    csvQuery: { ...query, limit: CSV_VALUES },
    loading: stats === null || stats.from !== range.from || stats.to !== range.to || !answers(stats, filter),
    empty: stats !== null && stats.range.clicks + stats.range.botClicks === 0,
  };
}
