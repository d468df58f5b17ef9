// What a stats view is narrowed to, as it lives in the page's address (so that a view can be shared and Back
// works) and as it is sent to the API: one value of a dimension (a drill-down) and, on the analytics page, a tag.
// No DOM: test/analytics/drill-down.test.ts runs these in Node.
import { dimensionText, valueLabel } from './analytics.ts';
import { DIMENSIONS, type Dimension } from './api.ts';

/** One value of one dimension: "Country: France". */
export interface Drill {
  dimension: Dimension;
  value: string;
}

export interface ViewFilter {
  drill: Drill | null;
  /** '' for every link. */
  tag: string;
}

export const NO_FILTER: ViewFilter = { drill: null, tag: '' };

function isDimension(name: string): name is Dimension {
  return (DIMENSIONS as readonly string[]).includes(name);
}

/** The filter of the page's query string; a dimension the dashboard does not know is no filter. */
export function readViewFilter(query: Record<string, string | undefined>): ViewFilter {
  const dimension = query['dimension'] ?? '';
  const value = query['value'] ?? '';
  return {
    drill: isDimension(dimension) && value !== '' ? { dimension, value } : null,
    tag: (query['tag'] ?? '').trim(),
  };
}

/** The page's query string for `filter` ('' when it has none), keeping whatever else `query` holds (a link's domain). */
export function viewSearch(filter: ViewFilter, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && name !== 'tag' && name !== 'dimension' && name !== 'value') params.set(name, value);
  }
  if (filter.tag !== '') params.set('tag', filter.tag);
  if (filter.drill !== null) {
    params.set('dimension', filter.drill.dimension);
    params.set('value', filter.drill.value);
  }
  const search = params.toString();
  return search === '' ? '' : `?${search}`;
}

/** The API's parameters for `filter`. */
export function filterParams(filter: ViewFilter): Record<string, string> {
  return {
    ...(filter.tag === '' ? {} : { tag: filter.tag }),
    ...(filter.drill === null ? {} : { dimension: filter.drill.dimension, value: filter.drill.value }),
  };
}

/** A drill-down as people read it: "Country: France", "Referrer: No referrer". */
export function drillLabel(drill: Drill): string {
  return `${dimensionText(drill.dimension).column}: ${valueLabel(drill.dimension, { value: drill.value, clicks: 0, botClicks: 0, visitors: 0 })}`;
}

/** The request's key: a new one whenever the range or the filter changes. */
export function filterKey(filter: ViewFilter): string {
  return `${filter.tag}\n${filter.drill?.dimension ?? ''}\n${filter.drill?.value ?? ''}`;
}

/** Whether an answer is of `filter` (until the next one comes, the last one stays on screen). */
export function answers(stats: { filter?: { dimension: string; value: string }; tag?: { tag: string } }, filter: ViewFilter): boolean {
  return (
    (stats.filter?.dimension ?? '') === (filter.drill?.dimension ?? '') &&
    (stats.filter?.value ?? '') === (filter.drill?.value ?? '') &&
    (stats.tag?.tag ?? '') === filter.tag
  );
}

/** The drill-down an answer is of, if any. */
export function drillOf(stats: { filter?: { dimension: string; value: string } }): Drill | null {
  const filter = stats.filter;
  return filter !== undefined && isDimension(filter.dimension) ? { dimension: filter.dimension, value: filter.value } : null;
}
