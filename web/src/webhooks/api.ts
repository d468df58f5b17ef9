// The webhooks routes of the API: the workspace's endpoints, their secrets, and each one's delivery log.
import type { Api } from '../api/client.ts';

/** The events an endpoint may take (README: Webhooks), in the API's order. */
export const WEBHOOK_EVENTS = [
  'link.created',
  'link.updated',
  'link.deleted',
  'link.expired',
  'link.click_limit_reached',
  'link.clicked',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface Webhook {
  id: number;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** Until when the secret before the last rotation signs too; null: no overlap under way. */
  previousSecretExpiresAt: string | null;
  /** Deliveries waiting or under way. */
  pending: number;
  /** Deliveries that failed their last try (resendable). */
  dead: number;
}

export interface CreatedWebhook extends Webhook {
  secret: string;
}

export interface WebhookFields {
  url: string;
  events: WebhookEvent[];
  description: string;
  enabled: boolean;
}

export interface WebhookSecret {
  secret: string;
  previousSecretExpiresAt: string | null;
}

export const DELIVERY_STATES = ['pending', 'sending', 'delivered', 'dead'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface Delivery {
  id: number;
  /** The webhook-id header: the same on every try and resend of the event. */
  webhookId: string;
  type: string;
  state: DeliveryState;
  attempts: number;
  /** The HTTP status of the last try; null: no answer. */
  lastStatus: number | null;
  lastError: string | null;
  latencyMs: number | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

export interface DeliveryPage {
  deliveries: Delivery[];
  /** The `before` of the next page; null: the last page. */
  next: string | null;
}

export async function listWebhooks(api: Api, signal?: AbortSignal): Promise<Webhook[]> {
  const answer = await api.request<{ webhooks: Webhook[] }>('/webhooks', { signal });
  return answer.webhooks;
}

export function createWebhook(api: Api, fields: WebhookFields): Promise<CreatedWebhook> {
  return api.request<CreatedWebhook>('/webhooks', { method: 'POST', json: fields });
}

export function updateWebhook(api: Api, id: number, changes: Partial<WebhookFields>): Promise<Webhook> {
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
