import type { Member } from '../api.ts';
import { AUDIT_ACTIONS, hasAuditFilters, NO_FILTERS, type AuditFilters as Filters } from './audit-filters.ts';

interface AuditFiltersProps {
  filters: Filters;
  /** The workspace's members, whom the log can be narrowed to. */
  members: readonly Member[];
  onChange: (filters: Filters) => void;
}

/** What the audit log shows: one action, one person, a range of days. Each control applies at once, as the links list's do. */
export function AuditFilters({ filters, members, onChange }: AuditFiltersProps) {
  const actors = members.map((m) => [String(m.id), m.name] as const);
  if (filters.actor !== '' && !actors.some(([id]) => id === filters.actor)) actors.push([filters.actor, `Person ${filters.actor}`]);
  return (
    <form class="audit-filters" role="search" aria-label="Audit log" onSubmit={(event) => event.preventDefault()}>
      <div class="field">
        <label for="audit-action">Action</label>
        <select id="audit-action" value={filters.action} onChange={(event) => onChange({ ...filters, action: event.currentTarget.value })}>
          <option value="">Any action</option>
          {AUDIT_ACTIONS.map((action) => (
            <option key={action} value={action}>
              {action}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="audit-actor">Who</label>
        <select id="audit-actor" value={filters.actor} onChange={(event) => onChange({ ...filters, actor: event.currentTarget.value })}>
          <option value="">Anyone</option>
          {actors.map(([id, name]) => (
            <option key={id} value={id}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="audit-from">From</label>
        <input
          id="audit-from"
          type="date"
          value={filters.from}
          max={filters.to || undefined}
          onChange={(event) => onChange({ ...filters, from: event.currentTarget.value })}
        />
      </div>
      <div class="field">
        <label for="audit-to">To</label>
        <input
          id="audit-to"
          type="date"
          value={filters.to}
          min={filters.from || undefined}
          onChange={(event) => onChange({ ...filters, to: event.currentTarget.value })}
        />
      </div>
      {hasAuditFilters(filters) && (
        <div class="filter-clear">
          <button type="button" class="button-link" onClick={() => onChange(NO_FILTERS)}>
            Clear filters
          </button>
        </div>
      )}
    </form>
  );
}
