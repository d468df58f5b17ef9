import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage, isAbort } from '../api/errors.ts';
import { useApp } from '../auth/context.ts';
import { ErrorMessage } from '../shared/Field.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { DELIVERY_STATES, listDeliveries, resendDelivery, type Delivery, type DeliveryPage, type DeliveryState } from './api.ts';
import { DeliveryTable } from './DeliveryTable.tsx';
import { DELIVERY_STATE_LABELS } from './webhooks.ts';

/** While a shown delivery is still on its way, the log is read again: soon at first, then less and less often. */
const FIRST_REFRESH_MS = 2000;
const LAST_REFRESH_MS = 30_000;

interface DeliveryLogProps {
  webhookId: number;
  /** The endpoint's name for the controls' accessible names. */
  name: string;
  /** After a resend or a refresh: the endpoint's counts may have moved. */
  onChanged: () => void;
}

/** An endpoint's delivery log, newest first (GET /webhooks/:id/deliveries): a filter by state, pages, a resend per delivery. */
export function DeliveryLog({ webhookId, name, onChanged }: DeliveryLogProps) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [state, setState] = useState<DeliveryState | null>(null);
  const [log, setLog] = useState<DeliveryPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reads, setReads] = useState(0);
  const [more, setMore] = useState(false);
  const [resending, setResending] = useState<number | null>(null);
  const wait = useRef(FIRST_REFRESH_MS);
  const prefix = `log-${webhookId}`;

  // The first page, again after every change of filter, refresh or resend.
  useEffect(() => {
    const abort = new AbortController();
    listDeliveries(api, webhookId, state, null, abort.signal).then(
      (page) => {
        setError(null);
        setLog(page);
        if (reads > 0) onChanged();
      },
      (caught: unknown) => {
        if (!isAbort(caught)) setError(errorMessage(caught));
      },
    );
    return () => abort.abort();
  }, [api, webhookId, state, reads]);

  // Deliveries under way change on their own: read the first page again while one shows (not past it, to keep "Load more" pages).
  useEffect(() => {
    if (log === null || log.deliveries.length > 25 || !log.deliveries.some((d) => d.state === 'pending' || d.state === 'sending')) {
      return undefined;
    }
    const timer = window.setTimeout(() => setReads((n) => n + 1), wait.current);
    wait.current = Math.min(wait.current * 2, LAST_REFRESH_MS);
    return () => window.clearTimeout(timer);
  }, [log]);

  const refresh = () => {
    wait.current = FIRST_REFRESH_MS;
    setReads((n) => n + 1);
  };

  const loadMore = async () => {
    if (log === null || log.next === null || more) return;
    setMore(true);
    try {
      const page = await listDeliveries(api, webhookId, state, log.next);
      setLog({ deliveries: [...log.deliveries, ...page.deliveries], next: page.next });
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setMore(false);
    }
  };

  const resend = async (delivery: Delivery) => {
    if (resending !== null) return;
    setResending(delivery.id);
    setError(null);
    try {
      await resendDelivery(api, webhookId, delivery.id);
      announce(`${delivery.type} is sent again`);
      refresh();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setResending(null);
    }
  };

  return (
    <section class="delivery-log" id={prefix} aria-labelledby={`${prefix}-heading`}>
      <LogHead
        prefix={prefix}
        name={name}
        state={state}
        onState={(next) => {
          wait.current = FIRST_REFRESH_MS;
          setState(next);
        }}
        onRefresh={refresh}
      />
      {error !== null && <ErrorMessage>{error}</ErrorMessage>}
      {log === null ? (
        error === null && <p class="loading">Loading deliveries…</p>
      ) : log.deliveries.length === 0 ? (
        <p class="muted">{state === null ? 'No deliveries yet: events are logged here as they are sent.' : `No ${state} deliveries.`}</p>
      ) : (
        <>
          <DeliveryTable deliveries={log.deliveries} name={name} resending={resending} onResend={(delivery) => void resend(delivery)} />
          {log.next !== null && (
            <div class="load-more">
              <button type="button" onClick={() => void loadMore()} aria-disabled={more}>
                {more ? 'Loading…' : 'Load more'}
                <span class="visually-hidden"> deliveries to {name}</span>
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}

interface LogHeadProps {
  prefix: string;
  name: string;
  /** The state shown; null: every state. */
  state: DeliveryState | null;
  onState: (state: DeliveryState | null) => void;
  onRefresh: () => void;
}

/** The log's heading, its filter by state and its Refresh button. */
function LogHead({ prefix, name, state, onState, onRefresh }: LogHeadProps) {
  return (
    <div class="log-head">
      <h4 id={`${prefix}-heading`}>Delivery log</h4>
      <div class="log-controls">
        <label for={`${prefix}-state`}>Show</label>
        <select
          id={`${prefix}-state`}
          value={state ?? ''}
          onChange={(event) => onState(event.currentTarget.value === '' ? null : (event.currentTarget.value as DeliveryState))}
        >
          <option value="">Every state</option>
          {DELIVERY_STATES.map((s) => (
            <option key={s} value={s}>
              {DELIVERY_STATE_LABELS[s]}
            </option>
          ))}
        </select>
        <button type="button" class="button-small" onClick={onRefresh}>
          Refresh<span class="visually-hidden"> the delivery log of {name}</span>
        </button>
      </div>
    </div>
  );
}
