import { drillLabel, type Drill } from './drill.ts';

/** The drill-down a view shows, as a chip that removes it ("Country: France ×"); a link, so Back brings it again. */
export function FilterChip({ drill, clearHref }: { drill: Drill | null; clearHref: string }) {
  if (drill === null) return null;
  return (
    <p class="filter-chips">
      <span class="muted">Only</span>
      <a class="filter-chip" href={clearHref}>
        <span>{drillLabel(drill)}</span>
        <span aria-hidden="true" class="filter-chip-x">
          ×
        </span>
        <span class="visually-hidden"> (remove this filter)</span>
      </a>
    </p>
  );
}
