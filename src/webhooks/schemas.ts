// The shapes of the webhook routes (webhooks/routes.ts), for validation and the OpenAPI document.

import { Type } from 'typebox';
import { literals } from '../api/schemas.ts';
import { DELIVERY_STATES, WEBHOOK_EVENTS } from '../core/webhooks.ts';

const EventList = Type.Array(Type.String({ examples: [...WEBHOOK_EVENTS] }), {
  description: `Which events it takes: ${WEBHOOK_EVENTS.join(', ')}.`,
  maxItems: 20,
});

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({ description: 'Where events are POSTed: an http(s) URL, checked like a link target (no private addresses).' }),
    events: EventList,
    description: Type.Optional(Type.String({ description: 'Up to 200 characters, for people.' })),
    enabled: Type.Optional(
      Type.Boolean({ description: 'Default true. A disabled endpoint is sent nothing, and no event is kept for it.' }),
    ),
  },
  { additionalProperties: false },
);

export const PatchWebhookBody = Type.Object(
  {
    url: Type.Optional(Type.String()),
    events: Type.Optional(EventList),
    description: Type.Optional(Type.String()),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const WebhookView = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String(),
    description: Type.String(),
    events: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    previousSecretExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Until when the secret before the last rotation signs too (null: no overlap under way).',
    }),
    pending: Type.Integer({ description: 'Deliveries waiting or under way.' }),
    dead: Type.Integer({ description: 'Deliveries that failed their last try and whose event no resend has delivered since.' }),
  },
  { title: 'Webhook' },
);

export const CreatedWebhook = Type.Intersect([
  WebhookView,
  Type.Object({ secret: Type.String({ description: 'The signing secret (whsec_…): verify each request with it.' }) }),
]);

export const WebhookList = Type.Object({ webhooks: Type.Array(WebhookView) });
export const WebhookParams = Type.Object({ id: Type.String() });
export const DeliveryParams = Type.Object({ id: Type.String(), delivery: Type.String() });

export const WebhookSecret = Type.Object({
  secret: Type.String({ description: 'The secret new requests are signed with (whsec_…).' }),
  previousSecretExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'Until when the secret it replaced signs too: each request then carries both signatures.',
  }),
});

export const DeliveryQuery = Type.Object(
  {
    state: Type.Optional(Type.String({ description: `One of ${DELIVERY_STATES.join(', ')}.` })),
    before: Type.Optional(Type.String({ description: "A delivery id: the page after it (the last page's `next`)." })),
    limit: Type.Optional(Type.String({ description: '1 to 100; default 50.' })),
  },
  { additionalProperties: false },
);

export const DeliveryView = Type.Object(
  {
    id: Type.Integer(),
    webhookId: Type.String({ description: 'The webhook-id header: the same on every try and resend of the event.' }),
    type: Type.String(),
    state: literals(DELIVERY_STATES, { description: `${DELIVERY_STATES.join(', ')}.` }),
    attempts: Type.Integer(),
    lastStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'The HTTP status of the last try; null: no answer.' }),
    lastError: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why the last try failed, coarsely: `HTTP <status>`, or a class of failure (timeout, connection refused or reset, DNS lookup failed, TLS error, network error). Never what the receiver answered.',
    }),
    latencyMs: Type.Union([Type.Integer(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    lastAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When a pending one is tried next.' }),
    deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'WebhookDelivery' },
);

export const DeliveryList = Type.Object({
  deliveries: Type.Array(DeliveryView),
  next: Type.Union([Type.String(), Type.Null()], { description: 'The `before` of the next page; null: this is the last.' }),
});

export const TestEventSent = Type.Object({
  deliveryId: Type.Integer({ description: 'The delivery of the test event: its outcome shows in the delivery log under this id.' }),
  webhookId: Type.String({ description: 'The webhook-id header the receiver gets.' }),
});
