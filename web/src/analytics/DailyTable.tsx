import type { RangeStats } from './api.ts';
import { formatCount, formatDay, plural } from '../shared/format.ts';

/** The chart's numbers as a table, folded away: the chart is a canvas that assistive technology cannot read. */
export function DailyTable({ stats }: { stats: RangeStats }) {
  return (
    <details class="data-table">
      <summary>Clicks per day as a table</summary>
      <div class="table-scroll">
        <table>
          <caption class="visually-hidden">
            Clicks per day from {formatDay(stats.from)} to {formatDay(stats.to)}: {plural(stats.range.clicks, 'click', 'clicks')} by people,{' '}
            {formatCount(stats.range.botClicks)} by bots
          </caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col" class="numeric">
                People
              </th>
              <th scope="col" class="numeric">
                Bots
              </th>
              <th scope="col" class="numeric">
                Visitors
              </th>
            </tr>
          </thead>
          <tbody>
            {stats.daily.map((d) => (
              <tr key={d.day}>
                <th scope="row">
                  <time dateTime={d.day}>{formatDay(d.day)}</time>
                </th>
                <td class="numeric">{formatCount(d.clicks)}</td>
                <td class="numeric">{formatCount(d.botClicks)}</td>
                <td class="numeric">{formatCount(d.visitors)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
