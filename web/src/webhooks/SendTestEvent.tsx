import { useEffect, useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { errorMessage } from '../api/errors.ts';
import { formatDateTime } from '../shared/format.ts';
import { useAnnounce } from '../shared/Status.tsx';
import { getDelivery, sendTestEvent, type Delivery, type Webhook } from './api.ts';
import { answerOf } from './webhooks.ts';

interface SendTestEventProps {
  webhook: Webhook;
  /** The endpoint's name for the button's accessible name. */
  name: string;
  /** Once the test event's first try is over: the list (its counts) and the log are read again. */
  onLanded: () => void;
}

/** How often, and how long, the log is read for the test event's first outcome; then the log has it. */
const POLL_MS = 500;
const POLL_FOR_MS = 20_000;

type Outcome = { kind: 'waiting' } | { kind: 'landed'; ok: boolean; text: string } | { kind: 'error'; text: string };

/** What the first try of a delivery came to, in people's words; null while none is over. */
export function outcomeOf(delivery: Delivery): { ok: boolean; text: string } | null {
  const answer = answerOf(delivery);
  if (answer === null || delivery.state === 'sending') return null;
  const how = [answer.status, answer.latency].filter((part) => part !== null).join(' ');
  if (delivery.state === 'delivered') return { ok: true, text: `Delivered: ${how}.` };
  const why = delivery.lastError !== null && delivery.lastStatus === null ? ` (${delivery.lastError})` : '';
  const next =
    delivery.state === 'pending' && delivery.nextAttemptAt !== null
      ? ` It is tried again at ${formatDateTime(delivery.nextAttemptAt)}: see the delivery log.`
      : ' No more tries.';
  return { ok: false, text: `Failed: ${how}${why}.${next}` };
}

/** "Send test event": queues one, then reads the delivery log briefly until its first try is over, and says how it went. */
export function SendTestEvent({ webhook, name, onLanded }: SendTestEventProps) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [delivery, setDelivery] = useState<number | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const outcomeId = `webhook-${webhook.id}-test`;

  useEffect(() => {
    if (delivery === null) return undefined;
    const abort = new AbortController();
    const until = performance.now() + POLL_FOR_MS;
    let timer: number | undefined;
    const poll = async () => {
      try {
        const found = await getDelivery(api, webhook.id, delivery, abort.signal);
        const landed = found === null ? null : outcomeOf(found);
        if (landed !== null) {
          setOutcome({ kind: 'landed', ...landed });
          announce(`Test event to ${name}: ${landed.text}`);
          setDelivery(null);
          onLanded();
          return;
        }
        if (performance.now() > until) {
          setOutcome({ kind: 'landed', ok: false, text: 'Sent, but not tried yet: see the delivery log.' });
          setDelivery(null);
          return;
        }
        timer = window.setTimeout(() => void poll(), POLL_MS);
      } catch (err) {
        if (abort.signal.aborted) return;
        setOutcome({ kind: 'error', text: errorMessage(err) });
        setDelivery(null);
      }
    };
    timer = window.setTimeout(() => void poll(), POLL_MS);
    return () => {
      abort.abort();
      window.clearTimeout(timer);
    };
  }, [delivery]);

  const send = async () => {
    if (outcome?.kind === 'waiting') return;
    setOutcome({ kind: 'waiting' });
    try {
      const sent = await sendTestEvent(api, webhook.id);
      setDelivery(sent.deliveryId);
    } catch (err) {
      setOutcome({ kind: 'error', text: errorMessage(err) });
    }
  };

  const waiting = outcome?.kind === 'waiting';
  return (
    <div class="test-event">
      <button
        type="button"
        class="button-small"
        onClick={() => void send()}
        aria-disabled={waiting}
        aria-describedby={outcome === null || waiting ? undefined : outcomeId}
      >
        {waiting ? 'Sending test event…' : 'Send test event'}
        <span class="visually-hidden"> to {name}</span>
      </button>
      {outcome !== null && outcome.kind !== 'waiting' && (
        <p
          id={outcomeId}
          class={outcome.kind === 'landed' && outcome.ok ? 'test-outcome test-outcome-ok' : 'test-outcome test-outcome-failed'}
          role={outcome.kind === 'error' ? 'alert' : undefined}
        >
          {outcome.text}
        </p>
      )}
    </div>
  );
}
