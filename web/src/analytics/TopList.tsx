import { dimensionText, sharePercent, valueCode, valueLabel } from './analytics.ts';
import type { Counts, Dimension, DimensionValue } from './api.ts';
import { BOTS, CountsTable, PEOPLE, VISITORS } from './CountsTable.tsx';
import { ShareBar } from './ShareBar.tsx';

interface TopListProps {
  dimension: Dimension;
  values: DimensionValue[];
  /** The period's totals, which each value's bar is a share of. */
  total: Counts;
  /** The address of the view narrowed to a value; none: values are not links. */
  drillHref?: ((value: string) => string) | undefined;
  /** What a value reads as when the page knows better than its code (one link's rules: links/rule-words.ts). */
  labelOf?: ((value: string) => string) | undefined;
}

/** The most frequent values of one dimension in a period (the countries, the referrers…), as a small table. */
export function TopList({ dimension, values, total, drillHref, labelOf }: TopListProps) {
  const { title, column } = dimensionText(dimension);
  const headingId = `top-${dimension}`;
  return (
    <section class="top-list" aria-labelledby={headingId}>
      <h3 id={headingId}>{title}</h3>
      {values.length === 0 ? (
        <p class="muted">None in this period.</p>
      ) : (
        <CountsTable<DimensionValue>
          class="top-table"
          labelledBy={headingId}
          rows={values}
          head={column}
          columns={[PEOPLE, BOTS, VISITORS]}
          keyOf={(row) => (row.other === true ? '\0other' : row.value)}
          rowClass={(row) => (row.other === true ? 'row-other' : undefined)}
          label={(row) => <ValueLabel dimension={dimension} row={row} total={total} drillHref={drillHref} labelOf={labelOf} />}
        />
      )}
    </section>
  );
}

function ValueLabel({
  dimension,
  row,
  total,
  drillHref,
  labelOf,
}: { dimension: Dimension; row: DimensionValue } & Omit<TopListProps, 'values'>) {
  const code = valueCode(dimension, row);
  const label = labelOf === undefined || row.other === true ? valueLabel(dimension, row) : labelOf(row.value);
  return (
    <>
      <span class="top-value">
        {code !== null && (
          <span class="value-code" aria-hidden="true">
            {code}
          </span>
        )}
        {/* "Others" sums values that are not kept apart: nothing to narrow to. */}
        {drillHref === undefined || row.other === true ? (
          label
        ) : (
          <a class="value-link" href={drillHref(row.value)}>
            {label}
          </a>
        )}
      </span>
      <ShareBar percent={sharePercent(row, total)} />
    </>
  );
}
