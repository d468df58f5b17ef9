import { useApp } from '../auth/context.ts';
import { defaultHostOf } from '../domains/domains.ts';
import { useDomains } from '../domains/use-domains.ts';
import { Page } from '../shared/Page.tsx';
import { getWorkspaceStats, statsCsvHref } from './api.ts';
import { Breakdown } from './Breakdown.tsx';
import { ClicksByDay } from './ClicksByDay.tsx';
import { OrphanVisits } from './OrphanVisits.tsx';
import { RangePicker } from './RangePicker.tsx';
import { StatsFrame } from './StatsFrame.tsx';
import { CountsHint, StatsTotals } from './StatsTotals.tsx';
import { TopLinks } from './TopLinks.tsx';
import { usePeriodStats } from './use-period-stats.ts';

/**
 * The whole workspace's clicks in a period (GET /stats): totals, a chart per day, the most clicked links, the top
 * values of each dimension, and the visits to short URLs that do not exist; the same as a CSV file.
 */
export function AnalyticsPage() {
  const { api, session } = useApp();
  const { domains } = useDomains();
  const period = usePeriodStats(
    (query, signal) => getWorkspaceStats(api, query, signal),
    (range) => `${range.from}/${range.to}`,
  );

  return (
    <Page
      title="Analytics"
      actions={
        <a class="button" href={statsCsvHref(null, period.csvQuery)} download>
          Download CSV
        </a>
      }
    >
      <p class="page-intro muted">Clicks on every link of {session.workspace.name}.</p>
      <RangePicker onChange={period.setRange} />
      <StatsFrame stats={period.data} error={period.error} retry={period.retry} loading={period.loading} what="analytics">
        {(stats) => (
          <>
            <section class="panel" aria-labelledby="clicks-heading">
              <h2 id="clicks-heading">Clicks</h2>
              <StatsTotals stats={stats} />
              {period.empty ? <p class="empty">No clicks in this period.</p> : <ClicksByDay stats={stats} />}
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
            {!period.empty && (
              <section class="panel" aria-labelledby="breakdown-heading">
                <h2 id="breakdown-heading">Where the clicks come from</h2>
                <Breakdown dimensions={stats.dimensions} total={stats.range} />
                <CountsHint />
              </section>
            )}
          </>
        )}
      </StatsFrame>
    </Page>
  );
}
