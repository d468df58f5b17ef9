import { useApp } from '../auth/context.ts';
import { linkPath, type LinkKey } from '../links/link-key.ts';
import { getStats, statsCsvHref } from './api.ts';
import { Breakdown } from './Breakdown.tsx';
import { ClicksByDay } from './ClicksByDay.tsx';
import { DrillNote, DrillShare, emptyText } from './DrillNote.tsx';
import { FilterChip } from './FilterChip.tsx';
import { RangePicker } from './RangePicker.tsx';
import { StatsFrame } from './StatsFrame.tsx';
import { CountsHint, StatsTotals } from './StatsTotals.tsx';
import { usePeriodStats } from './use-period-stats.ts';
import { useViewFilter } from './use-view-filter.ts';

/**
 * One link's clicks in a period (GET /links/:code/stats): totals, a chart per day with its table, and the top values
 * of each dimension (referrers, countries, devices…), each a link to the clicks of that value alone (a drill-down,
 * in the page's address); the same as a CSV file.
 */
export function ClicksPanel({ linkKey, targetText }: { linkKey: LinkKey; targetText?: (value: string) => string }) {
  const { api } = useApp();
  const view = useViewFilter({ tags: false, focusId: 'clicks-heading' });
  const period = usePeriodStats(
    (query, signal) => getStats(api, linkKey, query, signal),
    (range) => linkPath(linkKey, '/stats', { ...range }),
    view.filter,
  );

  return (
    <section class="panel" aria-labelledby="clicks-heading">
      <div class="panel-head">
        <h2 id="clicks-heading" tabIndex={-1}>
          Clicks
        </h2>
        <a class="button button-small" href={statsCsvHref(linkKey, period.csvQuery)} download>
          Download CSV
        </a>
      </div>
      <RangePicker onChange={period.setRange} />
      <FilterChip drill={view.filter.drill} clearHref={view.clearHref} />
      <StatsFrame stats={period.data} error={period.error} retry={period.retry} loading={period.loading} what="clicks">
        {(stats) => (
          <>
            <StatsTotals stats={stats} />
            {stats.filter !== undefined && <DrillShare filter={stats.filter} />}
            {period.empty ? <p class="empty">{emptyText(stats)}</p> : <ClicksByDay stats={stats} />}
            {stats.filter !== undefined ? (
              <DrillNote filter={stats.filter} clearHref={view.clearHref} />
            ) : (
              !period.empty && (
                <>
                  <Breakdown dimensions={stats.dimensions} total={stats.range} drillHref={view.drillHref} targetText={targetText} />
                  <CountsHint />
                </>
              )
            )}
          </>
        )}
      </StatsFrame>
    </section>
  );
}
