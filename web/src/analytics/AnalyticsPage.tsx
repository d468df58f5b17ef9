import { useApp } from '../auth/context.ts';
import { defaultHostOf } from '../domains/domains.ts';
import { useDomains } from '../domains/use-domains.ts';
import { plural } from '../shared/format.ts';
import { Page } from '../shared/Page.tsx';
import { getWorkspaceStats, statsCsvHref, type WorkspaceStats } from './api.ts';
import { Breakdown } from './Breakdown.tsx';
import { ClicksByDay } from './ClicksByDay.tsx';
import { drillLabel, drillOf } from './drill.ts';
import { DrillNote, DrillShare, emptyText } from './DrillNote.tsx';
import { FilterChip } from './FilterChip.tsx';
import { OrphanVisits } from './OrphanVisits.tsx';
import { RangePicker } from './RangePicker.tsx';
import { StatsFrame } from './StatsFrame.tsx';
import { CountsHint, StatsTotals } from './StatsTotals.tsx';
import { TagPicker } from './TagPicker.tsx';
import { TopLinks } from './TopLinks.tsx';
import { usePeriodStats } from './use-period-stats.ts';
import { useViewFilter } from './use-view-filter.ts';

/**
 * The whole workspace's clicks in a period (GET /stats), or those of the links with a tag: totals, a chart per day,
 * the most clicked links, the top values of each dimension (each a link to that value's clicks alone), and the
 * visits to short URLs that do not exist; the same as a CSV file. The tag and the value live in the address.
 */
export function AnalyticsPage() {
  const { api, session } = useApp();
  const { domains } = useDomains();
  const view = useViewFilter({ tags: true, focusId: 'clicks-heading' });
  const { filter } = view;
  const period = usePeriodStats(
    (query, signal) => getWorkspaceStats(api, query, signal),
    (range) => `${range.from}/${range.to}`,
    filter,
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
      <p class="page-intro muted">
        {filter.tag === '' ? `Clicks on every link of ${session.workspace.name}.` : `Clicks on the links tagged ${filter.tag}.`}
      </p>
      <div class="analytics-controls">
        <TagPicker tag={filter.tag} onChange={(tag) => view.route(view.hrefWith({ ...filter, tag }))} />
        <RangePicker onChange={period.setRange} />
      </div>
      <FilterChip drill={filter.drill} clearHref={view.clearHref} />
      <StatsFrame stats={period.data} error={period.error} retry={period.retry} loading={period.loading} what="analytics">
        {(stats) => (
          <>
            <section class="panel" aria-labelledby="clicks-heading">
              <h2 id="clicks-heading" tabIndex={-1}>
                <ClicksHeading stats={stats} />
              </h2>
              <TagCounted tag={stats.tag} />
              <StatsTotals stats={stats} />
              {stats.filter !== undefined && <DrillShare filter={stats.filter} />}
              {period.empty ? <p class="empty">{emptyText(stats)}</p> : <ClicksByDay stats={stats} />}
            </section>
            {/* Orphan visits are the workspace's alone: beside the top links only in the whole view. */}
            <div class={stats.filter === undefined && stats.tag === undefined ? 'analytics-columns' : undefined}>
              <section class="panel" aria-labelledby="top-links-heading">
                <h2 id="top-links-heading">Top links</h2>
                <TopLinks links={stats.topLinks} total={stats.range} defaultHost={defaultHostOf(domains)} />
                {stats.topLinksAmong !== undefined && stats.topLinks.length > 0 && (
                  <p class="hint">Among the {stats.topLinksAmong} links with the most clicks in this period.</p>
                )}
              </section>
              {stats.filter === undefined && stats.tag === undefined && (
                <section class="panel" aria-labelledby="orphans-heading">
                  <h2 id="orphans-heading">Orphan visits</h2>
                  <OrphanVisits orphans={stats.orphans} />
                </section>
              )}
            </div>
            {stats.filter !== undefined ? (
              <section class="panel" aria-labelledby="breakdown-heading">
                <h2 id="breakdown-heading">Where the clicks come from</h2>
                <DrillNote filter={stats.filter} clearHref={view.clearHref} />
              </section>
            ) : (
              !period.empty && (
                <section class="panel" aria-labelledby="breakdown-heading">
                  <h2 id="breakdown-heading">Where the clicks come from</h2>
                  <Breakdown dimensions={stats.dimensions} total={stats.range} drillHref={view.drillHref} />
                  <CountsHint />
                </section>
              )
            )}
          </>
        )}
      </StatsFrame>
    </Page>
  );
}

/** How many of a tag's links the numbers add up: all, or the most clicked (the API's bound). */
function TagCounted({ tag }: { tag: WorkspaceStats['tag'] }) {
  if (tag === undefined) return null;
  if (tag.counted === tag.links)
    return (
      <p class="muted">
        {plural(tag.links, 'link', 'links')} tagged {tag.tag}.
      </p>
    );
  return (
    <p class="muted">
      The {plural(tag.counted, 'link', 'links')} with the most clicks of the {plural(tag.links, 'link', 'links')} tagged {tag.tag}.
    </p>
  );
}

function ClicksHeading({ stats }: { stats: WorkspaceStats }) {
  const drill = drillOf(stats);
  return <>{drill === null ? 'Clicks' : `Clicks · ${drillLabel(drill)}`}</>;
}
