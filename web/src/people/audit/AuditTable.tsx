import { CellLabel } from '../../shared/CellLabel.tsx';
import { formatDateTime } from '../../shared/format.ts';
import { StackTableHead } from '../../shared/StackTableHead.tsx';
import type { AuditEntry } from '../api.ts';
import { changesOf } from './audit-filters.ts';

/** The audit log's entries, newest first: when, who, what, to what, from where, and what changed, folded. */
export function AuditTable({ entries }: { entries: AuditEntry[] }) {
  return (
    <div class="table-scroll">
      <table class="audit-table stack-table" role="table">
        <caption class="visually-hidden">Audit log</caption>
        <StackTableHead columns={['When', 'Who', 'Action', 'Target', 'From', 'Changes']} />
        <tbody role="rowgroup">
          {entries.map((entry) => (
            <tr key={entry.id} role="row" id={`audit-${entry.id}`} tabIndex={-1}>
              <th role="rowheader" scope="row">
                <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
              </th>
              <td role="cell">
                <CellLabel>Who</CellLabel>
                {entry.actor?.name ?? <span class="muted">Nobody signed in</span>}
              </td>
              <td role="cell">
                <CellLabel>Action</CellLabel>
                <code>{entry.action}</code>
              </td>
              <td role="cell" class="break">
                <CellLabel>Target</CellLabel>
                {entry.target.type}
                {entry.target.id !== null && <span class="muted"> {entry.target.id}</span>}
              </td>
              <td role="cell">
                <CellLabel>From</CellLabel>
                {entry.address ?? <span class="muted">–</span>}
              </td>
              <td role="cell">
                <CellLabel>Changes</CellLabel>
                <Changes entry={entry} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Changes({ entry }: { entry: AuditEntry }) {
  const changes = changesOf(entry.before, entry.after);
  if (changes.length === 0) return <span class="muted">–</span>;
  return (
    <details class="audit-changes">
      <summary>
        {changes.length} field{changes.length === 1 ? '' : 's'}
        <span class="visually-hidden"> changed by {entry.action}</span>
      </summary>
      <dl>
        {changes.map((change) => (
          <div key={change.field}>
            <dt>{change.field}</dt>
            <dd class="break">
              {change.before !== null && <del>{change.before}</del>}
              {change.before !== null && change.after !== null && ' → '}
              {change.after !== null && <ins>{change.after}</ins>}
            </dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
