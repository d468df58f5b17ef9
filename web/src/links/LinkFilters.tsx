import { useEffect, useRef, useState } from 'preact/hooks';
import { LINK_STATES, STATE_LABELS } from './link-states.ts';
import { MAX_SEARCH, MIN_SEARCH, NO_FILTERS, hasFilters, type Filters } from './list-filters.ts';
import type { Domain } from '../domains/api.ts';
import type { TagCount } from './api.ts';

interface LinkFiltersProps {
  filters: Filters;
  /** The workspace's domains: the domain filter is offered when there is more than the default one. */
  domains: readonly Domain[];
  tags: TagCount[];
  myName: string;
  /** `replace`: a change that should not add a history entry (each pause while typing a search). */
  onChange: (filters: Filters, replace: boolean) => void;
}

const SEARCH_DELAY_MS = 300;

/** Search, filters and order of the links list. The search is sent once typing pauses. */
export function LinkFilters({ filters, domains, tags, myName, onChange }: LinkFiltersProps) {
  const [q, setQ] = useState(filters.q);
  const timer = useRef<number | undefined>(undefined);

  // The address bar is the source of truth: Back or a bookmark changes the search box too.
  useEffect(() => setQ(filters.q), [filters.q]);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  const search = (value: string, replace: boolean) => {
    window.clearTimeout(timer.current);
    if (value !== filters.q) onChange({ ...filters, q: value }, replace);
  };

  const onSearchInput = (value: string) => {
    setQ(value);
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => search(value, true), SEARCH_DELAY_MS);
  };

  const tooShort = q.trim().length > 0 && q.trim().length < MIN_SEARCH;
  // A tag from the address bar that no link has (any more) still shows as chosen; so does a domain.
  const tagOptions = filters.tag !== '' && !tags.some((t) => t.tag === filters.tag) ? [{ tag: filters.tag, links: 0 }, ...tags] : tags;
  const hosts = domains.map((d) => d.host);
  if (filters.domain !== '' && !hosts.includes(filters.domain)) hosts.push(filters.domain);
  const showDomains = hosts.length > 1 || filters.domain !== '';

  return (
    <form
      class={showDomains ? 'filters filters-with-domain' : 'filters'}
      role="search"
      aria-label="Links"
      onSubmit={(event) => {
        event.preventDefault();
        search(q, false);
      }}
    >
      <div class="field filter-search">
        <label for="filter-q">Search</label>
        <input
          id="filter-q"
          type="search"
          name="q"
          value={q}
          maxLength={MAX_SEARCH}
          autoComplete="off"
          aria-describedby="filter-q-hint"
          onInput={(event) => onSearchInput(event.currentTarget.value)}
        />
        <p id="filter-q-hint" class="hint">
          {tooShort ? `Type at least ${MIN_SEARCH} characters to search.` : 'In codes, target URLs and titles.'}
        </p>
      </div>
      {showDomains && (
        <div class="field">
          <label for="filter-domain">Domain</label>
          <select
            id="filter-domain"
            value={filters.domain}
            onChange={(event) => onChange({ ...filters, domain: event.currentTarget.value }, false)}
          >
            <option value="">Any domain</option>
            {hosts.map((host) => (
              <option key={host} value={host}>
                {host}
              </option>
            ))}
          </select>
        </div>
      )}
      <div class="field">
        <label for="filter-tag">Tag</label>
        <select id="filter-tag" value={filters.tag} onChange={(event) => onChange({ ...filters, tag: event.currentTarget.value }, false)}>
          <option value="">Any tag</option>
          {tagOptions.map((t) => (
            <option key={t.tag} value={t.tag}>
              {t.tag} ({t.links})
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-state">State</label>
        <select
          id="filter-state"
          value={filters.state}
          onChange={(event) => onChange({ ...filters, state: event.currentTarget.value as Filters['state'] }, false)}
        >
          <option value="">Any state</option>
          {LINK_STATES.map((state) => (
            <option key={state} value={state}>
              {STATE_LABELS[state]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-creator">Created by</label>
        <select
          id="filter-creator"
          value={filters.creator}
          onChange={(event) => onChange({ ...filters, creator: event.currentTarget.value === 'me' ? 'me' : '' }, false)}
        >
          <option value="">Anyone</option>
          <option value="me">Me ({myName})</option>
        </select>
      </div>
      <div class="field">
        <label for="filter-sort">Sort by</label>
        <select
          id="filter-sort"
          value={filters.sort}
          onChange={(event) => onChange({ ...filters, sort: event.currentTarget.value === 'clicks' ? 'clicks' : 'created' }, false)}
        >
          <option value="created">Newest</option>
          <option value="clicks">Most clicked</option>
        </select>
      </div>
      {hasFilters(filters) && (
        <div class="filter-clear">
          <button type="button" class="button-link" onClick={() => onChange({ ...NO_FILTERS, sort: filters.sort }, false)}>
            Clear filters
          </button>
        </div>
      )}
    </form>
  );
}
