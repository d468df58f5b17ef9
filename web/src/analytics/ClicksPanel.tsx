import { useState } from 'preact/hooks';
import { CSV_VALUES, SHOWN_VALUES, type DayRange } from './analytics.ts';
import { useApp } from '../auth/context.ts';
import { useLoad } from '../shared/use-load.ts';
import { Breakdown } from './Breakdown.tsx';
import { ClicksChart } from './ClicksChart.tsx';
import { DailyTable } from './DailyTable.tsx';
import { ErrorMessage } from '../shared/Field.tsx';
import { defaultRange, RangePicker } from './RangePicker.tsx';
import { CountsHint, StatsTotals } from './StatsTotals.tsx';
import { linkPath, type LinkKey } from '../links/link-key.ts';
import { getStats, statsCsvHref, type StatsQuery } from './api.ts';

/**
 * One link's clicks in a period (GET /links/:code/stats): totals, a chart per day with its table, and the top values
 * of each dimension (referrers, countries, devices…); the same as a CSV file.
 */
export function ClicksPanel({ linkKey }: { linkKey: LinkKey }) {
  const { api } = useApp();
  const [range, setRange] = useState<DayRange>(defaultRange);
  const query: StatsQuery = { ...range, dimensions: 'all', limit: SHOWN_VALUES };
  const request = linkPath(linkKey, '/stats', { ...range });
  const { data: stats, error, retry } = useLoad((signal) => getStats(api, linkKey, query, signal), request);
  const loading = stats === null || stats.from !== range.from || stats.to !== range.to;
  const empty = stats !== null && stats.range.clicks + stats.range.botClicks === 0;

  return (
    <section class="panel" aria-labelledby="clicks-heading">
      <div class="panel-head">
        <h2 id="clicks-heading">Clicks</h2>
        <a class="button button-small" href={statsCsvHref(linkKey, { ...query, limit: CSV_VALUES })} download>
          Download CSV
        </a>
      </div>
      <RangePicker onChange={setRange} />
      {error !== null ? (
        <ErrorMessage onRetry={retry}>The clicks could not be loaded: {error}</ErrorMessage>
      ) : stats === null ? (
        <p class="loading">Loading clicks…</p>
      ) : (
        <div class={loading ? 'stats stats-loading' : 'stats'} aria-busy={loading}>
          <StatsTotals stats={stats} />
          {empty ? (
            <p class="empty">No clicks in this period.</p>
          ) : (
            <>
              <ClicksChart daily={stats.daily} />
              <p class="hint">Clicks of the last few seconds may not be counted yet.</p>
              <DailyTable stats={stats} />
              <Breakdown dimensions={stats.dimensions} total={stats.range} />
              <CountsHint />
            </>
          )}
        </div>
      )}
    </section>
  );
}
