// Webhook endpoints in the dashboard: what the endpoint forms send the API, and how a delivery reads.
import {
  WEBHOOK_EVENTS,
  type Delivery,
  type DeliveryState,
  type Webhook,
  type WebhookEvent,
  type NewWebhook,
  type WebhookChanges,
} from './api.ts';

/** The fields as typed: the URL and description as text, the events as ticked. */
export interface WebhookFormValues {
  url: string;
  description: string;
  events: readonly WebhookEvent[];
  enabled: boolean;
}

export const NEW_WEBHOOK_VALUES: WebhookFormValues = { url: '', description: '', events: ['link.created'], enabled: true };

/** What each event means, for the checkboxes' hints (README: Webhooks). */
export const EVENT_TEXT: Readonly<Record<WebhookEvent, string>> = {
  'link.created': 'a link was made (one, a bulk or an import)',
  'link.updated': 'a link was changed, disabling included',
  'link.deleted': 'a link was deleted',
  'link.expiring': 'a link’s expiry is near (LINK_EXPIRING_NOTICE_HOURS ahead)',
  'link.expired': 'a link’s expiry passed',
  'link.click_limit_reached': 'a link gave its last allowed click',
  'link.clicked': 'clicks were counted: one request per flush, never per click',
  'link.blocked': 'a blocklist named a link’s target, and its redirect now answers 451',
  'link.flagged': 'a blocklist named a link’s target, and visitors now see a warning first',
  'link.target_broken': 'probes of a link’s target failed enough times in a row to call it broken',
  'link.target_recovered': 'a broken link’s target answered again',
  'workspace.health_digest': 'once a day, the workspace’s broken links, when it has any',
};

function isEvent(event: string): event is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(event);
}

export function webhookFormValues(webhook: Webhook): WebhookFormValues {
  return { url: webhook.url, description: webhook.description, events: webhook.events.filter(isEvent), enabled: webhook.enabled };
}

/** The events ticked, in the API's order. */
export function toggleEvent(events: readonly WebhookEvent[], event: WebhookEvent, on: boolean): WebhookEvent[] {
  return WEBHOOK_EVENTS.filter((e) => (e === event ? on : events.includes(e)));
}

/** POST /webhooks: the fields trimmed; the API checks them all. */
export function newWebhook(values: WebhookFormValues): NewWebhook {
  return { url: values.url.trim(), description: values.description.trim(), events: [...values.events], enabled: values.enabled };
}

/** PATCH /webhooks/:id from the edit form: only what changed (its `enabled` has a button of its own). */
export function webhookChanges(webhook: Webhook, values: WebhookFormValues): WebhookChanges {
  const changes: WebhookChanges = {};
  const url = values.url.trim();
  const description = values.description.trim();
  if (url !== webhook.url) changes.url = url;
  if (description !== webhook.description) changes.description = description;
  if (values.events.join() !== webhook.events.join()) changes.events = [...values.events];
  return changes;
}

/** A delivery a person may send again: one that is over, either way. */
export function canResend(delivery: Delivery): boolean {
  return delivery.state === 'delivered' || delivery.state === 'dead';
}

/** How a delivery's last try was answered ("HTTP 204", "No answer") and how fast ("in 13 ms"); null before any try. */
export function answerOf(delivery: Delivery): { status: string; latency: string | null } | null {
  if (delivery.attempts === 0) return null;
  return {
    status: delivery.lastStatus === null ? 'No answer' : `HTTP ${delivery.lastStatus}`,
    latency: delivery.latencyMs === null ? null : `in ${delivery.latencyMs} ms`,
  };
}

export const DELIVERY_STATE_LABELS: Readonly<Record<DeliveryState, string>> = {
  pending: 'Pending',
  sending: 'Sending',
  delivered: 'Delivered',
  dead: 'Dead',
};
