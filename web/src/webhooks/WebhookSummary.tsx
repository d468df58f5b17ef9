import { formatCount } from '../shared/format.ts';
import type { Webhook } from './api.ts';

/** What an endpoint takes, and how its deliveries stand. */
export function WebhookSummary({ webhook }: { webhook: Webhook }) {
  return (
    <dl class="details webhook-details">
      <div>
        <dt>Events</dt>
        <dd>
          <ul class="tags" aria-label="Events">
            {webhook.events.map((event) => (
              <li key={event} class="tag">
                {event}
              </li>
            ))}
          </ul>
        </dd>
      </div>
      <div>
        <dt>Deliveries</dt>
        <dd>
          <span class="webhook-pending">{`${formatCount(webhook.pending)} waiting`}</span>
          {', '}
          <span class={webhook.dead > 0 ? 'webhook-dead has-dead' : 'webhook-dead'}>{`${formatCount(webhook.dead)} dead`}</span>
        </dd>
      </div>
    </dl>
  );
}
