// The links list's filters, as they live in the address bar (so a view can be bookmarked and Back works)
// and as they are sent to the API.
import type { SEARCH_MAX, SEARCH_MIN } from '../../../src/links/list-query.ts';
import { listParams, type LinkState, type ListQuery } from './api.ts';
import { isLinkState } from './link-states.ts';

export interface Filters {
  q: string;
  /** A domain's host; '' for every domain. */
  domain: string;
  tag: string;
  state: LinkState | '';
  creator: 'me' | '';
  /** 'broken': only links whose target the probes call broken (docs/target-health.md). */
  health: 'broken' | '';
  /** Archived links: '' leaves them out (the API's default), `include` lists them too, `only` alone. */
  archived: '' | 'include' | 'only';
  sort: 'created' | 'clicks';
}

export const NO_FILTERS: Filters = { q: '', domain: '', tag: '', state: '', creator: '', health: '', archived: '', sort: 'created' };

/** The API searches from this many characters on. */
export const MIN_SEARCH = 3 satisfies typeof SEARCH_MIN;
export const MAX_SEARCH = 100 satisfies typeof SEARCH_MAX;

export function readFilters(query: Record<string, string | undefined>): Filters {
  const state = query['state'] ?? '';
  return {
    q: query['q'] ?? '',
    domain: query['domain'] ?? '',
    tag: query['tag'] ?? '',
    state: isLinkState(state) ? state : '',
    creator: query['creator'] === 'me' ? 'me' : '',
    health: query['health'] === 'broken' ? 'broken' : '',
    archived: query['archived'] === 'include' || query['archived'] === 'only' ? query['archived'] : '',
    sort: query['sort'] === 'clicks' ? 'clicks' : 'created',
  };
}

/** The dashboard's own query string: only what differs from the defaults. */
export function filtersSearch(filters: Filters): string {
  const params = new URLSearchParams();
  if (filters.q !== '') params.set('q', filters.q);
  if (filters.domain !== '') params.set('domain', filters.domain);
  if (filters.tag !== '') params.set('tag', filters.tag);
  if (filters.state !== '') params.set('state', filters.state);
  if (filters.creator !== '') params.set('creator', filters.creator);
  if (filters.health !== '') params.set('health', filters.health);
  if (filters.archived !== '') params.set('archived', filters.archived);
  if (filters.sort !== 'created') params.set('sort', filters.sort);
  const search = params.toString();
  return search === '' ? '' : `?${search}`;
}

export function hasFilters(filters: Filters): boolean {
  return (
    searchTerm(filters) !== undefined ||
    filters.domain !== '' ||
    filters.tag !== '' ||
    filters.state !== '' ||
    filters.creator !== '' ||
    filters.health !== '' ||
    filters.archived !== ''
  );
}

/** How many of the filters behind the phone's "Filters (n)" button are set (the search has its own box; the order is no filter). */
export function setFilterCount(filters: Filters): number {
  return [filters.domain, filters.tag, filters.state, filters.creator, filters.health, filters.archived].filter((value) => value !== '')
    .length;
}

/** The search term the API is asked for: none while it is shorter than it accepts. */
export function searchTerm(filters: Filters): string | undefined {
  const q = filters.q.trim();
  return q.length >= MIN_SEARCH ? q.slice(0, MAX_SEARCH) : undefined;
}

/** The API's list query; "me" becomes the signed-in key's id. */
export function listQuery(filters: Filters, myKeyId: number): ListQuery {
  const query: ListQuery = { sort: filters.sort };
  const q = searchTerm(filters);
  if (q !== undefined) query.q = q;
  if (filters.domain !== '') query.domain = filters.domain;
  if (filters.tag !== '') query.tag = filters.tag;
  if (filters.state !== '') query.state = filters.state;
  if (filters.creator === 'me') query.creator = myKeyId;
  if (filters.health !== '') query.health = filters.health;
  if (filters.archived !== '') query.archived = filters.archived;
  return query;
}

/** The CSV export of what the list shows (every page of it): the same filters, no order, cursor or limit. */
export function exportHref(filters: Filters, myKeyId: number): string {
  const { sort: _sort, ...query } = listQuery(filters, myKeyId);
  const search = new URLSearchParams(listParams(query)).toString();
  return search === '' ? '/links/export.csv' : `/links/export.csv?${search}`;
}
