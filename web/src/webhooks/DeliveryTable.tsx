import { CellLabel } from '../shared/CellLabel.tsx';
import { formatDateTime } from '../shared/format.ts';
import { StackTableHead } from '../shared/StackTableHead.tsx';
import type { Delivery } from './api.ts';
import { answerOf, canResend, DELIVERY_STATE_LABELS } from './webhooks.ts';

interface DeliveryTableProps {
  deliveries: readonly Delivery[];
  /** The endpoint's name for the table's caption. */
  name: string;
  /** The delivery being sent again, if any. */
  resending: number | null;
  onResend: (delivery: Delivery) => void;
}

/** Deliveries, newest first: a table on wide screens, cards on narrow ones (stack-table), a resend for each one that is over. */
export function DeliveryTable({ deliveries, name, resending, onResend }: DeliveryTableProps) {
  return (
    <div class="table-scroll">
      <table class="delivery-table stack-table" role="table">
        <caption class="visually-hidden">Deliveries to {name}, newest first</caption>
        <StackTableHead columns={['Time', 'Event', 'State', 'Answer', 'Attempts', 'Last error']} numeric={['Attempts']} actions />
        <tbody role="rowgroup">
          {deliveries.map((delivery) => (
            <DeliveryRow key={delivery.id} delivery={delivery} busy={resending === delivery.id} onResend={() => onResend(delivery)} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DeliveryRow({ delivery, busy, onResend }: { delivery: Delivery; busy: boolean; onResend: () => void }) {
  const answer = answerOf(delivery);
  return (
    <tr role="row" class={`delivery delivery-${delivery.state}`}>
      <th role="rowheader" scope="row">
        <time dateTime={delivery.createdAt}>{formatDateTime(delivery.createdAt)}</time>
      </th>
      <td role="cell">
        <CellLabel>Event</CellLabel>
        <code>{delivery.type}</code>
      </td>
      <td role="cell">
        <CellLabel>State</CellLabel>
        <span>
          <span class={`badge badge-${delivery.state}`}>{DELIVERY_STATE_LABELS[delivery.state]}</span>
          {delivery.state === 'pending' && delivery.nextAttemptAt !== null && (
            <span class="hint next-try">
              next try <time dateTime={delivery.nextAttemptAt}>{formatDateTime(delivery.nextAttemptAt)}</time>
            </span>
          )}
        </span>
      </td>
      <td role="cell">
        <CellLabel>Answer</CellLabel>
        {answer === null ? (
          <span class="muted">—</span>
        ) : (
          <span>
            <span class="nowrap">{answer.status}</span> {answer.latency !== null && <span class="nowrap">{answer.latency}</span>}
          </span>
        )}
      </td>
      <td role="cell" class="numeric">
        <CellLabel>Attempts</CellLabel>
        {delivery.attempts}
      </td>
      <td role="cell" class="break">
        <CellLabel>Last error</CellLabel>
        {delivery.lastError === null ? <span class="muted">—</span> : <span class="last-error">{delivery.lastError}</span>}
      </td>
      <td role="cell">
        {canResend(delivery) && (
          <button type="button" class="button-small" onClick={onResend} aria-disabled={busy}>
            {busy ? 'Resending…' : 'Resend'}
            <span class="visually-hidden">
              {' '}
              {delivery.type} of {formatDateTime(delivery.createdAt)}
            </span>
          </button>
        )}
      </td>
    </tr>
  );
}
