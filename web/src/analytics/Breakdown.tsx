import { shownDimensions } from './analytics.ts';
import type { Breakdown as BreakdownData, Counts, Dimension } from './api.ts';
import { TopList } from './TopList.tsx';

interface BreakdownProps {
  dimensions: BreakdownData;
  total: Counts;
  /** The address of the view narrowed to a value of a dimension: each value is then a link to it. */
  drillHref?: (dimension: Dimension) => (value: string) => string;
  /** Words for the values of the `target` dimension (one link's rules), instead of "Rule 1". */
  targetText?: ((value: string) => string) | undefined;
}

/** A period's clicks by each dimension the operator has on: where they came from, on what, from which source. */
export function Breakdown({ dimensions, total, drillHref, targetText }: BreakdownProps) {
  const shown = shownDimensions(dimensions);
  if (shown.length === 0) return null;
  return (
    <>
      {drillHref !== undefined && <p class="hint">Choose a value to see only its clicks.</p>}
      <div class="top-lists">
        {shown.map(({ dimension, values }) => (
          <TopList
            key={dimension}
            dimension={dimension}
            values={values}
            total={total}
            drillHref={drillHref?.(dimension)}
            labelOf={dimension === 'target' ? targetText : undefined}
          />
        ))}
      </div>
    </>
  );
}
