import { formatCount, formatDay, plural } from '../shared/format.ts';
import type { DailyClicks, RangeStats } from './api.ts';
import { BOTS, CountsTable, PEOPLE, VISITORS } from './CountsTable.tsx';

/** The chart's numbers as a table, folded away: the chart is a canvas that assistive technology cannot read. */
export function DailyTable({ stats }: { stats: RangeStats }) {
  return (
    <details class="data-table">
      <summary>Clicks per day as a table</summary>
      <CountsTable<DailyClicks>
        rows={stats.daily}
        head="Day (UTC)"
        columns={[PEOPLE, BOTS, VISITORS]}
        keyOf={(d) => d.day}
        label={(d) => <time dateTime={d.day}>{formatDay(d.day)}</time>}
        caption={
          <>
            Clicks per day from {formatDay(stats.from)} to {formatDay(stats.to)}: {plural(stats.range.clicks, 'click', 'clicks')} by people,{' '}
            {formatCount(stats.range.botClicks)} by bots
          </>
        }
      />
    </details>
  );
}
