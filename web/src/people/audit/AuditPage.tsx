import { useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage, isAbort } from '../../api/errors.ts';
import { permissions, useApp } from '../../auth/context.ts';
import { ErrorMessage } from '../../shared/Field.tsx';
import { plural } from '../../shared/format.ts';
import { Page } from '../../shared/Page.tsx';
import { useLoad } from '../../shared/use-load.ts';
import { auditExportHref, listAudit, listMembers, type AuditEntry } from '../api.ts';
import { auditQuery, auditSearch, hasAuditFilters, readAuditFilters, type AuditFilters as Filters } from './audit-filters.ts';
import { AuditFilters } from './AuditFilters.tsx';
import { AuditTable } from './AuditTable.tsx';

interface LogState {
  entries: AuditEntry[];
  nextCursor: string | null;
  status: 'loading' | 'ready' | 'more' | 'error';
  error: string | null;
}

const LOADING: LogState = { entries: [], nextCursor: null, status: 'loading', error: null };

/** Who did what in the workspace (admins): filtered, "Load more" with the API's cursor, and the same as CSV. */
export function AuditPage() {
  const { api, session } = useApp();
  const { path, query, route } = useLocation();
  const allowed = permissions(session).canReadAudit;
  const filters = readAuditFilters(query);
  const apiQuery = auditQuery(filters);
  const queryKey = auditSearch(filters);
  const [log, setLog] = useState<LogState>(LOADING);
  const [attempt, setAttempt] = useState(0);
  const more = useRef<AbortController | null>(null);
  const members = useLoad((signal) => (allowed ? listMembers(api, signal) : Promise.resolve([])), 'members');

  useEffect(() => {
    if (!allowed) return undefined;
    const abort = new AbortController();
    setLog(LOADING);
    listAudit(api, apiQuery, null, abort.signal).then(
      (page) => setLog({ entries: page.entries, nextCursor: page.nextCursor, status: 'ready', error: null }),
      (error: unknown) => {
        if (!isAbort(error)) setLog({ ...LOADING, status: 'error', error: errorMessage(error) });
      },
    );
    return () => {
      abort.abort();
      more.current?.abort();
    };
  }, [api, queryKey, attempt, allowed]);

  if (!allowed) {
    return (
      <Page title="Audit log">
        <p class="message message-info">Only admins can read the workspace’s audit log.</p>
      </Page>
    );
  }

  const loadMore = async () => {
    if (log.nextCursor === null || log.status !== 'ready') return;
    const abort = new AbortController();
    more.current = abort;
    setLog({ ...log, status: 'more', error: null });
    try {
      const page = await listAudit(api, apiQuery, log.nextCursor, abort.signal);
      setLog((shown) => ({ entries: [...shown.entries, ...page.entries], nextCursor: page.nextCursor, status: 'ready', error: null }));
      // Keyboard and screen reader users go on from the first new row.
      const first = page.entries[0];
      if (first !== undefined) requestAnimationFrame(() => document.getElementById(`audit-${first.id}`)?.focus());
    } catch (error) {
      if (!isAbort(error)) setLog((shown) => ({ ...shown, status: 'ready', error: errorMessage(error) }));
    }
  };
  const changeFilters = (next: Filters) => route(`${path}${auditSearch(next)}`);

  return (
    <Page
      title="Audit log"
      actions={
        <a class="button" href={auditExportHref(apiQuery)} download>
          Download CSV
        </a>
      }
    >
      <AuditFilters filters={filters} members={members.data ?? []} onChange={changeFilters} />
      <p class="list-summary" aria-live="polite">
        {summaryOf(log, hasAuditFilters(filters))}
      </p>
      {log.status === 'error' ? (
        <ErrorMessage onRetry={() => setAttempt(attempt + 1)}>The audit log could not be loaded: {log.error}</ErrorMessage>
      ) : log.status !== 'loading' && log.entries.length === 0 ? (
        <p class="empty">{hasAuditFilters(filters) ? 'No entry matches these filters.' : 'Nothing has been recorded yet.'}</p>
      ) : (
        <>
          {log.entries.length > 0 && <AuditTable entries={log.entries} />}
          {log.error !== null && <ErrorMessage>More entries could not be loaded: {log.error}</ErrorMessage>}
          {log.nextCursor !== null && (
            <div class="load-more">
              <button type="button" onClick={() => void loadMore()} aria-disabled={log.status === 'more'}>
                {log.status === 'more' ? 'Loading…' : 'Load more entries'}
              </button>
            </div>
          )}
        </>
      )}
    </Page>
  );
}

function summaryOf(log: LogState, filtered: boolean): string {
  if (log.status === 'loading') return 'Loading the audit log…';
  if (log.status === 'error' || log.entries.length === 0) return '';
  const what = `${plural(log.entries.length, 'entry', 'entries')}${filtered ? ' matching the filters' : ''}`;
  return log.nextCursor === null ? `Showing ${what}, newest first.` : `Showing the latest ${what}; more can be loaded.`;
}
