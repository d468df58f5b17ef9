import type { RangeStats } from './api.ts';
import { ClicksChart } from './ClicksChart.tsx';
import { DailyTable } from './DailyTable.tsx';

/** A period's clicks day by day: the chart, and the same numbers as a table. */
export function ClicksByDay({ stats }: { stats: RangeStats }) {
  return (
    <>
      <ClicksChart daily={stats.daily} />
      <p class="hint">Clicks of the last few seconds may not be counted yet.</p>
      <DailyTable stats={stats} />
    </>
  );
}
