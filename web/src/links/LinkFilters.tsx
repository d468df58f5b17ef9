import { useEffect, useRef, useState } from 'preact/hooks';
import type { Domain } from '../domains/api.ts';
import type { TagCount } from './api.ts';
import { isLinkState, LINK_STATES, STATE_LABELS } from './link-states.ts';
import { MAX_SEARCH, MIN_SEARCH, NO_FILTERS, hasFilters, setFilterCount, type Filters } from './list-filters.ts';

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
  /** On a phone, whether the filters behind the "Filters (n)" button are shown (wider screens always show them). */
  const [open, setOpen] = useState(false);
  const set = setFilterCount(filters);
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
          placeholder="Search links"
          autoComplete="off"
          aria-describedby="filter-q-hint"
          onInput={(event) => onSearchInput(event.currentTarget.value)}
        />
        <p id="filter-q-hint" class="hint">
          {tooShort ? `Type at least ${MIN_SEARCH} characters to search.` : 'In codes, target URLs, titles and tags.'}
        </p>
      </div>
      <button type="button" class="filters-toggle" aria-expanded={open} aria-controls="filter-more" onClick={() => setOpen(!open)}>
        Filters{set > 0 ? ` (${set})` : ''}
      </button>
      <div id="filter-more" class={open ? 'filter-more is-open' : 'filter-more'}>
        {showDomains && (
          <FilterSelect
            id="filter-domain"
            label="Domain"
            value={filters.domain}
            options={[['', 'Any domain'], ...hosts.map((host) => [host, host] as const)]}
            onChange={(domain) => onChange({ ...filters, domain }, false)}
          />
        )}
        <FilterSelect
          id="filter-tag"
          label="Tag"
          value={filters.tag}
          options={[['', 'Any tag'], ...tagOptions.map((t) => [t.tag, `${t.tag} (${t.links})`] as const)]}
          onChange={(tag) => onChange({ ...filters, tag }, false)}
        />
        <FilterSelect
          id="filter-state"
          label="State"
          value={filters.state}
          options={[['', 'Any state'], ...LINK_STATES.map((state) => [state, STATE_LABELS[state]] as const)]}
          onChange={(state) => onChange({ ...filters, state: isLinkState(state) ? state : '' }, false)}
        />
        <FilterSelect
          id="filter-health"
          label="Target"
          value={filters.health}
          options={[
            ['', 'Any target'],
            ['broken', 'Broken'],
          ]}
          onChange={(health) => onChange({ ...filters, health: health === 'broken' ? 'broken' : '' }, false)}
        />
        <FilterSelect
          id="filter-creator"
          label="Created by"
          value={filters.creator}
          options={[
            ['', 'Anyone'],
            ['me', `Me (${myName})`],
          ]}
          onChange={(creator) => onChange({ ...filters, creator: creator === 'me' ? 'me' : '' }, false)}
        />
        <FilterSelect
          id="filter-archived"
          label="Archived"
          value={filters.archived}
          options={[
            ['', 'Not archived'],
            ['include', 'Archived too'],
            ['only', 'Only archived'],
          ]}
          onChange={(archived) => onChange({ ...filters, archived: archived === 'include' || archived === 'only' ? archived : '' }, false)}
        />
        <FilterSelect
          id="filter-sort"
          label="Sort by"
          value={filters.sort}
          options={[
            ['created', 'Newest'],
            ['clicks', 'Most clicked'],
          ]}
          onChange={(sort) => onChange({ ...filters, sort: sort === 'clicks' ? 'clicks' : 'created' }, false)}
        />
        {hasFilters(filters) && (
          <div class="filter-clear">
            <button type="button" class="button-link" onClick={() => onChange({ ...NO_FILTERS, sort: filters.sort }, false)}>
              Clear filters
            </button>
          </div>
        )}
      </div>
    </form>
  );
}

interface FilterSelectProps {
  id: string;
  label: string;
  value: string;
  /** Each option's value and text. */
  options: readonly (readonly [string, string])[];
  onChange: (value: string) => void;
}

/** One filter of the list, or its order: a labelled select that applies at once. */
function FilterSelect({ id, label, value, options, onChange }: FilterSelectProps) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        {options.map(([option, text]) => (
          <option key={option} value={option}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}
