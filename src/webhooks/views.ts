// Webhook endpoints, their secrets and deliveries as the API shows them (schemas.ts).

import type { DeliveryRecord } from './delivery-store.ts';
import type { EndpointSecret, WebhookEndpoint } from './store.ts';

export function view(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: [...endpoint.events],
    enabled: endpoint.enabled,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
    previousSecretExpiresAt: endpoint.previousUntil?.toISOString() ?? null,
    pending: endpoint.pending,
    dead: endpoint.dead,
  };
}

export function secretView(secret: EndpointSecret) {
  return { secret: secret.secret, previousSecretExpiresAt: secret.previousUntil?.toISOString() ?? null };
}

export function deliveryView(delivery: DeliveryRecord) {
  return {
    id: delivery.id,
    webhookId: delivery.msgId,
    type: delivery.type,
    state: delivery.state,
    attempts: delivery.attempts,
    lastStatus: delivery.lastStatus,
    lastError: delivery.lastError,
    latencyMs: delivery.latencyMs,
    createdAt: delivery.createdAt.toISOString(),
    lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
  };
}
