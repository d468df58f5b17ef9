// The webhooks routes of the API: the workspace's endpoints, their secrets, and each one's delivery log.
import type { Static } from 'typebox';
import type { WEBHOOK_EVENTS as SERVER_EVENTS, WebhookEvent } from '../../../src/core/webhooks.ts';
import type * as schema from '../../../src/webhooks/schemas.ts';
import type { DELIVERY_STATES as SERVER_DELIVERY_STATES, DeliveryState } from '../../../src/core/webhooks.ts';
import * as sdk from '../../../src/client/operations.ts';
import type { Api } from '../api/client.ts';

/** The events an endpoint may take (README: Webhooks), in the API's order. */
export const WEBHOOK_EVENTS = [
  'link.created',
  'link.updated',
  'link.deleted',
  'link.expiring',
  'link.expired',
  'link.click_limit_reached',
  'link.clicked',
  'link.blocked',
  'link.flagged',
  'link.target_broken',
  'link.target_recovered',
  'workspace.health_digest',
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
  const { data } = await sdk.getWebhooks({ client: api.client, throwOnError: true, signal: signal ?? null });
  return data.webhooks;
}

export async function createWebhook(api: Api, fields: NewWebhook): Promise<CreatedWebhook> {
  const { data } = await sdk.postWebhooks({ client: api.client, throwOnError: true, body: fields });
  return data;
}

export async function updateWebhook(api: Api, id: number, changes: WebhookChanges): Promise<Webhook> {
  const { data } = await sdk.patchWebhooksById({ client: api.client, throwOnError: true, path: { id: String(id) }, body: changes });
  return data;
}

export async function deleteWebhook(api: Api, id: number): Promise<void> {
  await sdk.deleteWebhooksById({ client: api.client, throwOnError: true, path: { id: String(id) } });
}

export async function getWebhookSecret(api: Api, id: number): Promise<WebhookSecret> {
  const { data } = await sdk.getWebhooksByIdSecret({ client: api.client, throwOnError: true, path: { id: String(id) } });
  return data;
}

/** A new secret signs from now on; the old one too, until previousSecretExpiresAt. */
export async function rotateWebhookSecret(api: Api, id: number): Promise<WebhookSecret> {
  const { data } = await sdk.postWebhooksByIdSecret({ client: api.client, throwOnError: true, path: { id: String(id) } });
  return data;
}

/** One page of an endpoint's delivery log, newest first: of one state (null: all), after the delivery `before`. */
export async function listDeliveries(
  api: Api,
  id: number,
  state: DeliveryState | null,
  before: string | null,
  signal?: AbortSignal,
): Promise<DeliveryPage> {
  return deliveriesPage(api, id, { limit: '25', ...(state === null ? {} : { state }), ...(before === null ? {} : { before }) }, signal);
}

async function deliveriesPage(
  api: Api,
  id: number,
  query: NonNullable<sdk.GetWebhooksByIdDeliveriesData['query']>,
  signal: AbortSignal | undefined,
): Promise<DeliveryPage> {
  const { data } = await sdk.getWebhooksByIdDeliveries({
    client: api.client,
    throwOnError: true,
    path: { id: String(id) },
    query,
    signal: signal ?? null,
  });
  return data;
}

/** The event again, as a new delivery (same webhook-id) due now. */
export async function resendDelivery(api: Api, id: number, delivery: number): Promise<Delivery> {
  const path = { id: String(id), delivery: String(delivery) };
  const { data } = await sdk.postWebhooksByIdDeliveriesByDeliveryResend({ client: api.client, throwOnError: true, path });
  return data;
}

/** What POST /webhooks/:id/test answers: the delivery of the test event, to follow in the log. */
export type TestEventSent = Static<typeof schema.TestEventSent>;

/** Queues a test event for the endpoint, delivered as any event is (signed, retried, logged). */
export async function sendTestEvent(api: Api, id: number): Promise<TestEventSent> {
  const { data } = await sdk.postWebhooksByIdTest({ client: api.client, throwOnError: true, path: { id: String(id) } });
  return data;
}

/** One delivery of the log: the page of one before the next id; null if it is gone (removed, or pruned). */
export async function getDelivery(api: Api, id: number, delivery: number, signal?: AbortSignal): Promise<Delivery | null> {
  const page = await deliveriesPage(api, id, { before: String(delivery + 1), limit: '1' }, signal);
  const [found] = page.deliveries;
  return found?.id === delivery ? found : null;
}
