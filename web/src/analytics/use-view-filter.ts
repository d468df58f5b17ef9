import { useLocation } from 'preact-iso';
import { useEffect, useRef } from 'preact/hooks';
import { filterKey, readViewFilter, viewSearch, type Drill, type ViewFilter } from './drill.ts';

/**
 * The filter of a stats view, read from the page's address; `hrefWith` makes the address of another one (values
 * and the chip are links: Back undoes a drill-down). When the filter changes, focus moves to the heading with id
 * `focusId`, as the link that was followed is gone from the page.
 */
export function useViewFilter({ tags, focusId }: { tags: boolean; focusId: string }) {
  const { path, query, route } = useLocation();
  const read = readViewFilter(query);
  const filter: ViewFilter = tags ? read : { ...read, tag: '' };
  const key = filterKey(filter);
  const shown = useRef(key);
  useEffect(() => {
    if (shown.current === key) return;
    shown.current = key;
    document.getElementById(focusId)?.focus();
  }, [key]);
  const hrefWith = (next: ViewFilter) => `${path}${viewSearch(next, query)}`;
  return {
    filter,
    hrefWith,
    /** The address of a drill-down to `value` of `dimension`, within the same tag. */
    drillHref: (dimension: Drill['dimension']) => (value: string) => hrefWith({ ...filter, drill: { dimension, value } }),
    /** The address without the drill-down. */
    clearHref: hrefWith({ ...filter, drill: null }),
    route,
  };
}
