import { dimensionText, sharePercent, valueCode, valueLabel } from './analytics.ts';
import { formatCount } from '../shared/format.ts';
import { ShareBar } from './ShareBar.tsx';
import type { Counts, Dimension, DimensionValue } from './api.ts';

interface TopListProps {
  dimension: Dimension;
  values: DimensionValue[];
  /** The period's totals, which each value's bar is a share of. */
  total: Counts;
}

/** The most frequent values of one dimension in a period (the countries, the referrers…), as a small table. */
export function TopList({ dimension, values, total }: TopListProps) {
  const { title, column } = dimensionText(dimension);
  const headingId = `top-${dimension}`;
  return (
    <section class="top-list" aria-labelledby={headingId}>
      <h3 id={headingId}>{title}</h3>
      {values.length === 0 ? (
        <p class="muted">None in this period.</p>
      ) : (
        <div class="table-scroll">
          <table class="top-table" aria-labelledby={headingId}>
            <thead>
              <tr>
                <th scope="col">{column}</th>
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
              {values.map((row) => {
                const code = valueCode(dimension, row);
                return (
                  <tr key={row.other === true ? '\0other' : row.value} class={row.other === true ? 'row-other' : undefined}>
                    <th scope="row">
                      <span class="top-value">
                        {code !== null && (
                          <span class="value-code" aria-hidden="true">
                            {code}
                          </span>
                        )}
                        {valueLabel(dimension, row)}
                      </span>
                      <ShareBar percent={sharePercent(row, total)} />
                    </th>
                    <td class="numeric">{formatCount(row.clicks)}</td>
                    <td class="numeric">{formatCount(row.botClicks)}</td>
                    <td class="numeric">{formatCount(row.visitors)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
