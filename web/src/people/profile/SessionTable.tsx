import { useState } from 'preact/hooks';
import { useApp } from '../../auth/context.ts';
import { CellLabel } from '../../shared/CellLabel.tsx';
import { DateText } from '../../shared/DateText.tsx';
import { ErrorMessage } from '../../shared/Field.tsx';
import { formatDateTime } from '../../shared/format.ts';
import { StackTableHead } from '../../shared/StackTableHead.tsx';
import { useAnnounce } from '../../shared/Status.tsx';
import { useAction } from '../../shared/use-action.ts';
import { useLoad } from '../../shared/use-load.ts';
import { closeSession, listSessions } from '../api.ts';
import { describeUserAgent } from '../user-agent.ts';

/** Your open sessions (GET /auth/sessions), this one marked; any other can be signed out (DELETE /auth/sessions/:id). */
export function SessionTable({ version }: { version: number }) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [closed, setClosed] = useState(0);
  const sessions = useLoad((signal) => listSessions(api, signal), `${version} ${closed}`);
  const { busy, error, run } = useAction<string>();

  const close = (id: string, what: string) =>
    run(id, async () => {
      await closeSession(api, id);
      announce(`${what} signed out`);
      setClosed((n) => n + 1);
      // The heading: the row and its button are gone.
      document.getElementById('sessions-heading')?.focus();
    });

  return (
    <section class="panel" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading" tabIndex={-1}>
        Where you are signed in
      </h2>
      {error !== null && <ErrorMessage>{error}</ErrorMessage>}
      {sessions.error !== null ? (
        <ErrorMessage onRetry={sessions.retry}>Your sessions could not be loaded: {sessions.error}</ErrorMessage>
      ) : sessions.data === null ? (
        <p class="loading">Loading sessions…</p>
      ) : (
        <div class="table-scroll">
          <table class="session-table stack-table" role="table">
            <caption class="visually-hidden">Your sessions</caption>
            <StackTableHead columns={['Browser', 'From', 'Signed in', 'Last seen']} actions />
            <tbody role="rowgroup">
              {sessions.data.map((s) => {
                const what = describeUserAgent(s.userAgent);
                return (
                  <tr key={s.id} role="row">
                    <th role="rowheader" scope="row" title={s.userAgent ?? undefined}>
                      {what}
                      {s.current && <span class="badge badge-current">This session</span>}
                    </th>
                    <td role="cell">
                      <CellLabel>From</CellLabel>
                      {s.address ?? <span class="muted">Unknown</span>}
                    </td>
                    <td role="cell">
                      <CellLabel>Signed in</CellLabel>
                      <DateText iso={s.createdAt} />
                    </td>
                    <td role="cell">
                      <CellLabel>Last seen</CellLabel>
                      <DateText iso={s.lastSeenAt} />
                    </td>
                    <td role="cell">
                      {!s.current && (
                        <button
                          type="button"
                          class="button-small button-danger"
                          aria-disabled={busy === s.id}
                          onClick={() => close(s.id, what)}
                        >
                          {busy === s.id ? 'Signing out…' : 'Sign out'}
                          <span class="visually-hidden">
                            {' '}
                            {what}, signed in {formatDateTime(s.createdAt)}
                          </span>
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
