import type { ComponentChildren } from 'preact';
import { formatCount } from '../shared/format.ts';

/** A column of numbers: its header, and each row's number. */
export interface CountColumn<R> {
  label: string;
  of: (row: R) => number;
}

export const PEOPLE: CountColumn<{ clicks: number }> = { label: 'People', of: (row) => row.clicks };
export const BOTS: CountColumn<{ botClicks: number }> = { label: 'Bots', of: (row) => row.botClicks };
export const VISITORS: CountColumn<{ visitors: number }> = { label: 'Visitors', of: (row) => row.visitors };

interface CountsTableProps<R> {
  rows: readonly R[];
  /** The header of the column that says what each row is. */
  head: string;
  columns: readonly CountColumn<R>[];
  keyOf: (row: R) => string;
  /** What a row is: its header cell. */
  label: (row: R) => ComponentChildren;
  rowClass?: (row: R) => string | undefined;
  /** The table's name: a caption for screen readers, or the id of the heading above it. */
  caption?: ComponentChildren;
  labelledBy?: string;
  class?: string;
}

/** Rows of numbers (clicks by people and by bots, visitors, visits), one row per day, value, link or path. */
export function CountsTable<R>({
  rows,
  head,
  columns,
  keyOf,
  label,
  rowClass,
  caption,
  labelledBy,
  class: className,
}: CountsTableProps<R>) {
  return (
    <div class="table-scroll">
      <table class={className} aria-labelledby={labelledBy}>
        {caption !== undefined && <caption class="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            <th scope="col">{head}</th>
            {columns.map((column) => (
              <th key={column.label} scope="col" class="numeric">
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={keyOf(row)} class={rowClass?.(row)}>
              <th scope="row">{label(row)}</th>
              {columns.map((column) => (
                <td key={column.label} class="numeric">
                  {formatCount(column.of(row))}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
