/**
 * A table cell's label, shown only on narrow screens where the table is laid out as cards and its column
 * headers are hidden; screen readers have the column header already.
 */
export function CellLabel({ children }: { children: string }) {
  return (
    <span class="cell-label" aria-hidden="true">
      {children}
    </span>
  );
}
