import { formatCount } from '../shared/format.ts';
import { dimensionText } from './analytics.ts';
import type { RangeStats } from './api.ts';
import { drillOf } from './drill.ts';

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

/** A drill-down's share of all the period's clicks, in one sentence. */
export function DrillShare({ filter }: { filter: NonNullable<RangeStats['filter']> }) {
  const all = filter.of.clicks + filter.of.botClicks;
  return (
    <p class="drill-share">
      <strong>{percent.format(filter.share)}</strong> of all {formatCount(all)} {all === 1 ? 'click' : 'clicks'} in this period (people and
      bots).
    </p>
  );
}

/**
 * Why the other lists are gone: the service keeps no single clicks (privacy by design), only each day's count per
 * value of each dimension, so "browsers of the visitors from France" is not something it knows.
 */
export function DrillNote({ filter, clearHref }: { filter: NonNullable<RangeStats['filter']>; clearHref: string }) {
  const drill = drillOf({ filter });
  // "Chosen by" names a column, not a thing one narrows to.
  const column =
    drill === null ? 'value' : drill.dimension === 'target' ? 'rule or variant' : dimensionText(drill.dimension).column.toLowerCase();
  return (
    <p class="drill-note">
      Referrers, countries, devices and the other lists cannot be narrowed to one {column}: no single click is kept (privacy by design),
      only how many clicks each value had each day. <a href={clearHref}>Show all clicks</a>
    </p>
  );
}

/** What an empty period says: of all clicks, or of the value drilled into. */
export function emptyText(stats: RangeStats): string {
  return stats.filter === undefined ? 'No clicks in this period.' : 'No clicks of this value in this period.';
}
