import { useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage, isAbort } from '../api/errors.ts';
import { permissions, useApp } from '../auth/context.ts';
import { defaultHostOf } from '../domains/domains.ts';
import { useDomains } from '../domains/use-domains.ts';
import { ErrorMessage } from '../shared/Field.tsx';
import { formatCount, plural } from '../shared/format.ts';
import { Page } from '../shared/Page.tsx';
import { listParams, listTags, type TagCount } from './api.ts';
import { linkElementId, linkKeyOf } from './link-key.ts';
import { LinkFilters } from './LinkFilters.tsx';
import { listPage, type ListedLink } from './list/list-api.ts';
import { LinkList } from './list/LinkList.tsx';
import { exportHref, filtersSearch, hasFilters, listQuery, NO_FILTERS, readFilters, type Filters } from './list-filters.ts';

interface ListState {
  links: ListedLink[];
  nextCursor: string | null;
  /** How many links pass the filters (from the first page), and whether that is a lower bound; null: not known. */
  total: { count: number; atLeast: boolean } | null;
  status: 'loading' | 'ready' | 'more' | 'error';
  error: string | null;
}

const LOADING: ListState = { links: [], nextCursor: null, total: null, status: 'loading', error: null };

/**
 * The links list. Paging is "Load more": the API's cursors only go forward, and appending keeps what was read on
 * screen (and on a phone, the scroll position), where Next/Previous would need a stack of cursors that a bookmark
 * or a reload cannot restore anyway.
 */
export function LinksPage() {
  const { api, session } = useApp();
  const { path, query, route } = useLocation();
  const filters = readFilters(query);
  const apiQuery = listQuery(filters, session.key.id);
  const queryKey = new URLSearchParams(listParams(apiQuery)).toString();
  const can = permissions(session);

  const [list, setList] = useState<ListState>(LOADING);
  const [attempt, setAttempt] = useState(0);
  const [tags, setTags] = useState<TagCount[]>([]);
  // Without them, the list still works: only the domain filter is missing, and every link's page names its domain.
  const { domains } = useDomains();
  const defaultHost = defaultHostOf(domains);
  /** The "Load more" in flight: a new query stops it, so its page never lands in another query's list. */
  const more = useRef<AbortController | null>(null);

  useEffect(() => {
    const abort = new AbortController();
    listTags(api, abort.signal).then(setTags, (error: unknown) => {
      if (!isAbort(error)) setTags([]);
    });
    return () => abort.abort();
  }, [api]);

  useEffect(() => {
    const abort = new AbortController();
    setList(LOADING);
    listPage(api, apiQuery, null, abort.signal).then(
      (page) =>
        setList({
          links: page.links,
          nextCursor: page.nextCursor,
          total: page.total === undefined ? null : { count: page.total, atLeast: page.totalAtLeast === true },
          status: 'ready',
          error: null,
        }),
      (error: unknown) => {
        if (!isAbort(error)) setList({ ...LOADING, status: 'error', error: errorMessage(error) });
      },
    );
    return () => {
      abort.abort();
      more.current?.abort();
    };
  }, [api, queryKey, attempt]);

  const loadMore = async () => {
    if (list.nextCursor === null || list.status !== 'ready') return;
    const abort = new AbortController();
    more.current = abort;
    setList({ ...list, status: 'more', error: null });
    try {
      const page = await listPage(api, apiQuery, list.nextCursor, abort.signal);
      setList((shown) => ({ ...shown, links: [...shown.links, ...page.links], nextCursor: page.nextCursor, status: 'ready', error: null }));
      // Keyboard and screen reader users go on from the first new row.
      const first = page.links[0];
      if (first !== undefined) {
        const id = linkElementId('row', linkKeyOf(first, defaultHost));
        requestAnimationFrame(() => document.getElementById(id)?.focus());
      }
    } catch (error) {
      if (!isAbort(error)) setList((shown) => ({ ...shown, status: 'ready', error: errorMessage(error) }));
    }
  };

  // The same path (/app or /app/links): only the query changes, so the page is not "navigated" and focus stays put.
  const changeFilters = (next: Filters, replace: boolean) => route(`${path}${filtersSearch(next)}`, replace);
  const filtered = hasFilters(filters);
  const summary = countText(list, filtered);
  const changed = (link: ListedLink) => setList((shown) => ({ ...shown, links: shown.links.map((l) => (sameLink(l, link) ? link : l)) }));
  const deleted = (link: ListedLink) =>
    setList((shown) => ({
      ...shown,
      links: shown.links.filter((l) => !sameLink(l, link)),
      total: shown.total === null ? null : { ...shown.total, count: Math.max(0, shown.total.count - 1) },
    }));

  return (
    <Page
      title="Links"
      actions={
        <>
          {can.canCreate && (
            // On a phone, pinned to the bottom of the screen (links.css): the page's main action stays in reach.
            <a class="button button-primary sticky-create" href="/app/links/new">
              New link
            </a>
          )}
          <a class="button" href={exportHref(filters, session.key.id)} download>
            Export CSV
          </a>
        </>
      }
    >
      <LinkFilters filters={filters} domains={domains ?? []} tags={tags} myName={session.key.name} onChange={changeFilters} />
      <p class="list-summary" aria-live="polite">
        {summary}
      </p>
      {list.status === 'error' ? (
        <ErrorMessage onRetry={() => setAttempt(attempt + 1)}>The links could not be loaded: {list.error}</ErrorMessage>
      ) : list.status !== 'loading' && list.links.length === 0 ? (
        <EmptyState
          filtered={filtered}
          canCreate={can.canCreate}
          onClear={() => changeFilters({ ...NO_FILTERS, sort: filters.sort }, false)}
        />
      ) : (
        <>
          {list.links.length > 0 && (
            <LinkList links={list.links} defaultHost={defaultHost} busy={list.status === 'more'} onChanged={changed} onDeleted={deleted} />
          )}
          {list.error !== null && <ErrorMessage>More links could not be loaded: {list.error}</ErrorMessage>}
          {list.nextCursor !== null && (
            <div class="load-more">
              <button type="button" onClick={() => void loadMore()} aria-disabled={list.status === 'more'}>
                {list.status === 'more' ? 'Loading…' : 'Load more links'}
              </button>
            </div>
          )}
        </>
      )}
    </Page>
  );
}

const sameLink = (a: ListedLink, b: ListedLink) => a.domain === b.domain && a.code === b.code;

/** "1,234 links", "3 links matching the filters", "10,000+ links"; and how many are shown when not all are. */
function countText(list: ListState, filtered: boolean): string {
  if (list.status === 'loading') return 'Loading links…';
  if (list.status === 'error' || list.links.length === 0) return '';
  const matching = filtered ? ' matching the filters' : '';
  if (list.total === null) {
    const what = `${plural(list.links.length, 'link', 'links')}${matching}`;
    return list.nextCursor === null ? `Showing ${what}.` : `Showing the first ${what}; more can be loaded.`;
  }
  const { count, atLeast } = list.total;
  const total = atLeast ? `${formatCount(count)}+ links` : plural(count, 'link', 'links');
  return list.links.length < count || atLeast ? `${total}${matching}, ${formatCount(list.links.length)} shown.` : `${total}${matching}.`;
}

function EmptyState({ filtered, canCreate, onClear }: { filtered: boolean; canCreate: boolean; onClear: () => void }) {
  if (filtered) {
    return (
      <div class="empty">
        <h2>No links match these filters</h2>
        <p>Try another search, or clear the filters to see every link.</p>
        <button type="button" onClick={onClear}>
          Clear filters
        </button>
      </div>
    );
  }
  return (
    <div class="empty">
      <h2>No links yet</h2>
      {canCreate ? (
        <p>
          <a href="/app/links/new">Create your first link</a> or <a href="/app/import">import links from a CSV file</a>.
        </p>
      ) : (
        <p>Links created in this workspace will be listed here.</p>
      )}
    </div>
  );
}
