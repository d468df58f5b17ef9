import { formatCount, formatDay } from '../shared/format.ts';
import { formatError } from './analytics.ts';
import type { RangeStats } from './api.ts';

/** A period's totals in one line: clicks by people and by bots, and the estimated number of people behind them. */
export function StatsTotals({ stats }: { stats: RangeStats }) {
  const { clicks, botClicks, visitors } = stats.range;
  return (
    <p class="totals" aria-live="polite">
      <span>
        <strong>{formatCount(clicks)}</strong> {clicks === 1 ? 'click' : 'clicks'} by people
      </span>
      <span>
        <strong>{formatCount(botClicks)}</strong> by bots
      </span>
      <span>
        <strong>≈ {formatCount(visitors)}</strong> unique {visitors === 1 ? 'visitor' : 'visitors'}{' '}
        <span class="muted">({formatError(stats.visitorsError)})</span>
      </span>
      <span class="muted">
        {formatDay(stats.from)} – {formatDay(stats.to)} (UTC days)
      </span>
    </p>
  );
}

/** What the three numbers of every stats table mean. */
export function CountsHint() {
  return (
    <p class="hint">
      People and Bots count clicks (bots and crawlers by their user agent); Visitors estimates how many different people clicked.
    </p>
  );
}
