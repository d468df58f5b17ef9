import { shownDimensions } from './analytics.ts';
import type { Breakdown as BreakdownData, Counts } from './api.ts';
import { TopList } from './TopList.tsx';

/** A period's clicks by each dimension the operator has on: where they came from, on what, from which source. */
export function Breakdown({ dimensions, total }: { dimensions: BreakdownData; total: Counts }) {
  const shown = shownDimensions(dimensions);
  if (shown.length === 0) return null;
  return (
    <div class="top-lists">
      {shown.map(({ dimension, values }) => (
        <TopList key={dimension} dimension={dimension} values={values} total={total} />
      ))}
    </div>
  );
}
