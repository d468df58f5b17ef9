import { useState } from 'preact/hooks';
import { getWorkspaceStats, statsCsvHref, type StatsQuery } from './api.ts';
import { CSV_VALUES, SHOWN_VALUES, type DayRange } from './analytics.ts';
import { Breakdown } from './Breakdown.tsx';
import { ClicksChart } from './ClicksChart.tsx';
import { DailyTable } from './DailyTable.tsx';
import { ErrorMessage } from '../shared/Field.tsx';
import { OrphanVisits } from './OrphanVisits.tsx';
import { Page } from '../shared/Page.tsx';
import { defaultRange, RangePicker } from './RangePicker.tsx';
import { CountsHint, StatsTotals } from './StatsTotals.tsx';
import { TopLinks } from './TopLinks.tsx';
import { useApp } from '../auth/context.ts';
import { defaultHostOf } from '../domains/domains.ts';
import { useDomains } from '../domains/use-domains.ts';
import { useLoad } from '../shared/use-load.ts';

/**
 * The whole workspace's clicks in a period (GET /stats): totals, a chart per day, the most clicked links, the top
 * values of each dimension, and the visits to short URLs that do not exist; the same as a CSV file.
 */
export function AnalyticsPage() {
  const { api, session } = useApp();
  const { domains } = useDomains();
  const [range, setRange] = useState<DayRange>(defaultRange);
  const query: StatsQuery = { ...range, dimensions: 'all', limit: SHOWN_VALUES };
  const { data: stats, error, retry } = useLoad((signal) => getWorkspaceStats(api, query, signal), `${range.from}/${range.to}`);
  const loading = stats === null || stats.from !== range.from || stats.to !== range.to;
  const empty = stats !== null && stats.range.clicks + stats.range.botClicks === 0;

  return (
    <Page
      title="Analytics"
      actions={
        <a class="button" href={statsCsvHref(null, { ...query, limit: CSV_VALUES })} download>
          Download CSV
        </a>
      }
    >
      <p class="page-intro muted">Clicks on every link of {session.workspace.name}.</p>
      <RangePicker onChange={setRange} />
      {error !== null ? (
        <ErrorMessage onRetry={retry}>The analytics could not be loaded: {error}</ErrorMessage>
      ) : stats === null ? (
        <p class="loading">Loading analytics…</p>
      ) : (
        <div class={loading ? 'stats stats-loading' : 'stats'} aria-busy={loading}>
          <section class="panel" aria-labelledby="clicks-heading">
            <h2 id="clicks-heading">Clicks</h2>
            <StatsTotals stats={stats} />
            {empty ? (
              <p class="empty">No clicks in this period.</p>
            ) : (
              <>
                <ClicksChart daily={stats.daily} />
                <p class="hint">Clicks of the last few seconds may not be counted yet.</p>
                <DailyTable stats={stats} />
              </>
            )}
          </section>
          <div class="analytics-columns">
            <section class="panel" aria-labelledby="top-links-heading">
              <h2 id="top-links-heading">Top links</h2>
              <TopLinks links={stats.topLinks} total={stats.range} defaultHost={defaultHostOf(domains)} />
            </section>
            <section class="panel" aria-labelledby="orphans-heading">
              <h2 id="orphans-heading">Orphan visits</h2>
              <OrphanVisits orphans={stats.orphans} />
            </section>
          </div>
          {!empty && (
            <section class="panel" aria-labelledby="breakdown-heading">
              <h2 id="breakdown-heading">Where the clicks come from</h2>
              <Breakdown dimensions={stats.dimensions} total={stats.range} />
              <CountsHint />
            </section>
          )}
        </div>
      )}
    </Page>
  );
}
