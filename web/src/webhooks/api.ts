// The webhooks routes of the API: the workspace's endpoints, their secrets, and each one's delivery log.
import type { Static } from 'typebox';
import type { WEBHOOK_EVENTS as SERVER_EVENTS, WebhookEvent } from '../../../src/core/webhooks.ts';
import type * as schema from '../../../src/webhooks/schemas.ts';
import type { DELIVERY_STATES as SERVER_DELIVERY_STATES, DeliveryState } from '../../../src/core/webhooks.ts';
import type { Api } from '../api/client.ts';

/** The events an endpoint may take (README: Webhooks), in the API's order. */
export const WEBHOOK_EVENTS = [
  'link.created',
  'link.updated',
  'link.deleted',
  'link.expired',
  'link.click_limit_reached',
  'link.clicked',
] as const satisfies typeof SERVER_EVENTS;
export type { WebhookEvent };

export const DELIVERY_STATES = ['pending', 'sending', 'delivered', 'dead'] as const satisfies typeof SERVER_DELIVERY_STATES;
export type { DeliveryState };

export type Webhook = Static<typeof schema.WebhookView>;
/** A new endpoint with its signing secret. */
export type CreatedWebhook = Static<typeof schema.CreatedWebhook>;
export type NewWebhook = Static<typeof schema.CreateWebhookBody>;
export type WebhookChanges = Static<typeof schema.PatchWebhookBody>;
export type WebhookSecret = Static<typeof schema.WebhookSecret>;

/** One try, or series of tries, to deliver an event to an endpoint. */
export type Delivery = Static<typeof schema.DeliveryView>;
/** A page of the delivery log; `next`, the `before` of the next page (null: the last). */
export type DeliveryPage = Static<typeof schema.DeliveryList>;

export async function listWebhooks(api: Api, signal?: AbortSignal): Promise<Webhook[]> {
  const answer = await api.request<Static<typeof schema.WebhookList>>('/webhooks', { signal });
  return answer.webhooks;
}

export function createWebhook(api: Api, fields: NewWebhook): Promise<CreatedWebhook> {
  return api.request<CreatedWebhook>('/webhooks', { method: 'POST', json: fields });
}

export function updateWebhook(api: Api, id: number, changes: WebhookChanges): Promise<Webhook> {
  return api.request<Webhook>(`/webhooks/${id}`, { method: 'PATCH', json: changes });
}

export function deleteWebhook(api: Api, id: number): Promise<void> {
  return api.request<void>(`/webhooks/${id}`, { method: 'DELETE' });
}

export function getWebhookSecret(api: Api, id: number): Promise<WebhookSecret> {
  return api.request<WebhookSecret>(`/webhooks/${id}/secret`);
}

/** A new secret signs from now on; the old one too, until previousSecretExpiresAt. */
export function rotateWebhookSecret(api: Api, id: number): Promise<WebhookSecret> {
  return api.request<WebhookSecret>(`/webhooks/${id}/secret`, { method: 'POST' });
}

/** One page of an endpoint's delivery log, newest first: of one state (null: all), after the delivery `before`. */
export function listDeliveries(
  api: Api,
  id: number,
  state: DeliveryState | null,
  before: string | null,
  signal?: AbortSignal,
): Promise<DeliveryPage> {
  const params = new URLSearchParams({ limit: '25' });
  if (state !== null) params.set('state', state);
  if (before !== null) params.set('before', before);
  return api.request<DeliveryPage>(`/webhooks/${id}/deliveries?${params}`, { signal });
}

/** The event again, as a new delivery (same webhook-id) due now. */
export function resendDelivery(api: Api, id: number, delivery: number): Promise<Delivery> {
  return api.request<Delivery>(`/webhooks/${id}/deliveries/${delivery}/resend`, { method: 'POST' });
}

/** What POST /webhooks/:id/test answers: the delivery of the test event, to follow in the log. */
export type TestEventSent = Static<typeof schema.TestEventSent>;

/** Queues a test event for the endpoint, delivered as any event is (signed, retried, logged). */
export function sendTestEvent(api: Api, id: number): Promise<TestEventSent> {
  return api.request<TestEventSent>(`/webhooks/${id}/test`, { method: 'POST' });
}

/** One delivery of the log: the page of one before the next id; null if it is gone (removed, or pruned). */
export async function getDelivery(api: Api, id: number, delivery: number, signal?: AbortSignal): Promise<Delivery | null> {
  const params = new URLSearchParams({ before: String(delivery + 1), limit: '1' });
  const page = await api.request<DeliveryPage>(`/webhooks/${id}/deliveries?${params}`, { signal });
  const [found] = page.deliveries;
  return found?.id === delivery ? found : null;
}
