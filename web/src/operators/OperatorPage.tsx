import { useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { ConfirmDialog } from '../shared/ConfirmDialog.tsx';
import { DateText } from '../shared/DateText.tsx';
import { ErrorMessage } from '../shared/Field.tsx';
import { Page } from '../shared/Page.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { useAction } from '../shared/use-action.ts';
import { useLoad } from '../shared/use-load.ts';
import {
  actOnReport,
  listReports,
  listWorkspaces,
  setSuspended,
  type OperatorWorkspace,
  type ReportAction,
  type ReportGroup,
  type ReportStatus,
} from './api.ts';
import './operator.css';

/** Each action's button, the question its confirmation asks, and what it does. */
const ACTIONS: Record<ReportAction, { label: string; title: string; effect: string; danger: boolean }> = {
  disable_link: {
    label: 'Disable link',
    title: 'Disable this link?',
    effect: 'The link stops redirecting (410). Its owner may turn it on again.',
    danger: true,
  },
  block_domain: {
    label: 'Block domain',
    title: 'Block the target’s domain?',
    effect: 'Its host joins the operators’ blocklist: every link to it (and its subdomains) is blocked, and no new one may be made.',
    danger: true,
  },
  suspend_workspace: {
    label: 'Suspend workspace',
    title: 'Suspend the workspace?',
    effect: 'All its links stop redirecting, and its people and keys may no longer change anything, until it is lifted.',
    danger: true,
  },
  dismiss: { label: 'Dismiss', title: 'Dismiss these reports?', effect: 'The reports close; the link is not touched.', danger: false },
};

const STATUS_WORDS: Record<ReportStatus, string> = { open: 'Open', actioned: 'Actioned', dismissed: 'Dismissed' };

/** The deployment operators' page: the abuse report queue with its actions, and the workspaces with their suspension. */
export function OperatorPage() {
  const [status, setStatus] = useState<ReportStatus>('open');
  const [changes, setChanges] = useState(0);
  return (
    <Page title="Operator">
      <div class="operator-layout">
        <ReportQueue status={status} onStatus={setStatus} changes={changes} onChanged={() => setChanges((n) => n + 1)} />
        <Workspaces changes={changes} onChanged={() => setChanges((n) => n + 1)} />
      </div>
    </Page>
  );
}

interface QueueProps {
  status: ReportStatus;
  onStatus: (status: ReportStatus) => void;
  changes: number;
  onChanged: () => void;
}

function ReportQueue({ status, onStatus, changes, onChanged }: QueueProps) {
  const { api } = useApp();
  const announce = useAnnounce();
  const reports = useLoad((signal) => listReports(api, status, signal), `${status} ${changes}`);
  const [asked, setAsked] = useState<{ group: ReportGroup; action: ReportAction } | null>(null);
  const { busy, error, setError, run } = useAction<'act'>();

  const confirm = () => {
    if (asked === null) return;
    run('act', async () => {
      await actOnReport(api, asked.group.id, asked.action);
      announce(`${ACTIONS[asked.action].label}: done for ${asked.group.shortUrl}`);
      setAsked(null);
      onChanged();
    });
  };

  return (
    <section class="panel" aria-labelledby="reports-heading">
      <h2 id="reports-heading">Abuse reports</h2>
      <div class="status-filter">
        <label for="report-status">Show</label>
        <select id="report-status" value={status} onChange={(event) => onStatus((event.target as HTMLSelectElement).value as ReportStatus)}>
          {Object.entries(STATUS_WORDS).map(([value, words]) => (
            <option key={value} value={value}>
              {words}
            </option>
          ))}
        </select>
      </div>
      {reports.error !== null ? (
        <ErrorMessage onRetry={reports.retry}>The reports could not be loaded: {reports.error}</ErrorMessage>
      ) : reports.data === null ? (
        <p class="loading">Loading reports…</p>
      ) : reports.data.length === 0 ? (
        <p>No {STATUS_WORDS[status].toLowerCase()} reports.</p>
      ) : (
        <ul class="report-list">
          {reports.data.map((group) => (
            <ReportCard key={group.id} group={group} onAct={(action) => setAsked({ group, action })} />
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={asked !== null}
        title={asked === null ? 'Act on the reports?' : ACTIONS[asked.action].title}
        confirmLabel={asked === null ? 'Confirm' : ACTIONS[asked.action].label}
        busy={busy !== null}
        error={error}
        onConfirm={confirm}
        onCancel={() => {
          setAsked(null);
          setError(null);
        }}
      >
        {asked !== null && (
          <p>
            <strong>{asked.group.shortUrl}</strong>
            {asked.group.link !== null && <> (of {asked.group.link.workspace.name})</>}: {ACTIONS[asked.action].effect}
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}

function ReportCard({ group, onAct }: { group: ReportGroup; onAct: (action: ReportAction) => void }) {
  const { link } = group;
  return (
    <li class="report-card">
      <h3>{group.shortUrl}</h3>
      <p class="report-target">{link === null ? 'Deleted since' : link.url}</p>
      <p class="report-meta">
        {group.count} report{group.count === 1 ? '' : 's'}: {group.reasons.join(', ')} · last <DateText iso={group.lastAt} />
        {link !== null && <> · {link.workspace.name}</>}
        {link?.workspace.suspended === true && ' (suspended)'}
        {link !== null && link.disabled && ' · disabled'}
        {link !== null && link.safety !== null && ` · ${link.safety} by ${link.safetyList ?? 'a list'}`}
        {group.action !== null && ` · ${ACTIONS[group.action].label.toLowerCase()}`}
      </p>
      {group.notes.some((note) => note.message !== null) && (
        <ul class="report-notes">
          {group.notes
            .filter((note) => note.message !== null)
            .map((note) => (
              <li key={note.id}>
                {note.message}
                {note.email !== null && <span class="muted"> ({note.email})</span>}
              </li>
            ))}
        </ul>
      )}
      {group.status === 'open' && (
        <div class="card-actions">
          {(Object.keys(ACTIONS) as ReportAction[])
            .filter((action) => link !== null || action === 'dismiss')
            .map((action) => (
              <button
                key={action}
                type="button"
                class={`button-small${ACTIONS[action].danger ? ' button-danger' : ''}`}
                onClick={() => onAct(action)}
              >
                {ACTIONS[action].label}
                <span class="visually-hidden"> for {group.shortUrl}</span>
              </button>
            ))}
        </div>
      )}
    </li>
  );
}

function Workspaces({ changes, onChanged }: { changes: number; onChanged: () => void }) {
  const { api } = useApp();
  const announce = useAnnounce();
  const workspaces = useLoad((signal) => listWorkspaces(api, signal), String(changes));
  const [asked, setAsked] = useState<OperatorWorkspace | null>(null);
  const { busy, error, setError, run } = useAction<'suspend'>();

  const confirm = () => {
    if (asked === null) return;
    run('suspend', async () => {
      await setSuspended(api, asked.id, !asked.suspended);
      announce(`${asked.name} ${asked.suspended ? 'is no longer suspended' : 'suspended'}`);
      setAsked(null);
      onChanged();
    });
  };

  return (
    <section class="panel" aria-labelledby="workspaces-heading">
      <h2 id="workspaces-heading">Workspaces</h2>
      {workspaces.error !== null ? (
        <ErrorMessage onRetry={workspaces.retry}>The workspaces could not be loaded: {workspaces.error}</ErrorMessage>
      ) : workspaces.data === null ? (
        <p class="loading">Loading workspaces…</p>
      ) : (
        <ul class="workspace-list">
          {workspaces.data.map((workspace) => (
            <li key={workspace.id} class="workspace-card">
              <h3>
                {workspace.name}
                {workspace.suspended && <span class="muted"> (suspended)</span>}
              </h3>
              <p class="report-meta">
                {workspace.members} member{workspace.members === 1 ? '' : 's'} · {workspace.links} link{workspace.links === 1 ? '' : 's'}
              </p>
              <button
                type="button"
                class={`button-small${workspace.suspended ? '' : ' button-danger'}`}
                onClick={() => setAsked(workspace)}
              >
                {workspace.suspended ? 'Lift suspension' : 'Suspend'}
                <span class="visually-hidden"> {workspace.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={asked !== null}
        title={asked?.suspended === true ? 'Lift the suspension?' : 'Suspend the workspace?'}
        confirmLabel={asked?.suspended === true ? 'Lift suspension' : 'Suspend'}
        busy={busy !== null}
        error={error}
        onConfirm={confirm}
        onCancel={() => {
          setAsked(null);
          setError(null);
        }}
      >
        {asked !== null && (
          <p>
            <strong>{asked.name}</strong>:{' '}
            {asked.suspended
              ? 'the links its suspension blocked redirect again, and its people and keys may make changes again.'
              : ACTIONS.suspend_workspace.effect}
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}
