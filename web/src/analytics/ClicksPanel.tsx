import { useApp } from '../auth/context.ts';
import { linkPath, type LinkKey } from '../links/link-key.ts';
import { getStats, statsCsvHref } from './api.ts';
import { Breakdown } from './Breakdown.tsx';
import { ClicksByDay } from './ClicksByDay.tsx';
import { RangePicker } from './RangePicker.tsx';
import { StatsFrame } from './StatsFrame.tsx';
import { CountsHint, StatsTotals } from './StatsTotals.tsx';
import { usePeriodStats } from './use-period-stats.ts';

/**
 * One link's clicks in a period (GET /links/:code/stats): totals, a chart per day with its table, and the top values
 * of each dimension (referrers, countries, devices…); the same as a CSV file.
 */
export function ClicksPanel({ linkKey }: { linkKey: LinkKey }) {
  const { api } = useApp();
  const period = usePeriodStats(
    (query, signal) => getStats(api, linkKey, query, signal),
    (range) => linkPath(linkKey, '/stats', { ...range }),
  );

  return (
    <section class="panel" aria-labelledby="clicks-heading">
      <div class="panel-head">
        <h2 id="clicks-heading">Clicks</h2>
        <a class="button button-small" href={statsCsvHref(linkKey, period.csvQuery)} download>
          Download CSV
        </a>
      </div>
      <RangePicker onChange={period.setRange} />
      <StatsFrame stats={period.data} error={period.error} retry={period.retry} loading={period.loading} what="clicks">
        {(stats) => (
          <>
            <StatsTotals stats={stats} />
            {period.empty ? (
              <p class="empty">No clicks in this period.</p>
            ) : (
              <>
                <ClicksByDay stats={stats} />
                <Breakdown dimensions={stats.dimensions} total={stats.range} />
                <CountsHint />
              </>
            )}
          </>
        )}
      </StatsFrame>
    </section>
  );
}
