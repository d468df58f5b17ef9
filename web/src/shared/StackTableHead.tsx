interface StackTableHeadProps {
  columns: readonly string[];
  /** The columns of numbers, aligned to the right. */
  numeric?: readonly string[];
  /** A last column of buttons, named for screen readers only. */
  actions?: boolean;
}

/**
 * The column headers of a table that narrow screens lay out as cards (`stack-table`): the explicit roles keep the
 * table's semantics when the cards' CSS changes its display.
 */
export function StackTableHead({ columns, numeric = [], actions = false }: StackTableHeadProps) {
  return (
    <thead role="rowgroup">
      <tr role="row">
        {columns.map((column) => (
          <th key={column} role="columnheader" scope="col" class={numeric.includes(column) ? 'numeric' : undefined}>
            {column}
          </th>
        ))}
        {actions && (
          <th role="columnheader" scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
