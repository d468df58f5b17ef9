// GET, POST, PATCH and DELETE /webhooks: a workspace's webhook endpoints, its admins' alone (an
// endpoint reads every link of the workspace as it changes). Its secret is shown when it is made
// and by GET /webhooks/:id/secret, rotated by POST /webhooks/:id/secret with an overlap during
// which both sign. GET /webhooks/:id/deliveries is its delivery log; a delivery of it is sent again
// (same webhook-id) by POST /webhooks/:id/deliveries/:delivery/resend. The worker that sends them is
// webhooks/worker.ts.

import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { requireAdmin } from '../auth/authenticate.ts';
import { parseId } from '../core/ids.ts';
import type { TargetPolicy } from '../core/target-policy.ts';
import { checkTargetUrl } from '../core/url-rules.ts';
import { checkDescription, checkEvents, WEBHOOK_ENDPOINTS_MAX, type WebhookEvent } from '../core/webhooks.ts';
import type { DbBreaker } from '../db/breaker.ts';
import type { Queryable } from '../db/pool.ts';
import {
  DELIVERY_STATES,
  deleteEndpoint,
  findEndpoint,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  readSecret,
  resendDelivery,
  rotateSecret,
  updateEndpoint,
  type DeliveryRecord,
  type DeliveryState,
  type EndpointFields,
  type EndpointSecret,
  type WebhookEndpoint,
} from './store.ts';
import { AppError } from '../errors.ts';
import { SECURITY } from '../api/schemas.ts';
import {
  CreatedWebhook,
  CreateWebhookBody,
  DeliveryList,
  DeliveryParams,
  DeliveryQuery,
  DeliveryView,
  PatchWebhookBody,
  WebhookList,
  WebhookParams,
  WebhookSecret,
  WebhookView,
} from './schemas.ts';
import { errorResponses as errors } from '../errors.ts';

export interface WebhooksDeps {
  db: Queryable;
  /** For the create's transaction (the count of endpoints under the workspace's lock). */
  pool: pg.Pool;
  breaker: DbBreaker;
  /** A link target's rules, with private addresses as WEBHOOK_ALLOW_PRIVATE says. */
  policy: TargetPolicy;
  /** How long a rotated secret still signs (WEBHOOK_SECRET_OVERLAP_HOURS). */
  overlapMs: number;
}

const PAGE_DEFAULT = 50;
const PAGE_MAX = 100;

/** A new signing secret: Standard Webhooks' whsec_ and base64 of 24 random bytes (192 bits). */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function view(endpoint: WebhookEndpoint) {
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

function secretView(secret: EndpointSecret) {
  return { secret: secret.secret, previousSecretExpiresAt: secret.previousUntil?.toISOString() ?? null };
}

function deliveryView(delivery: DeliveryRecord) {
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

/** The fields a body gives, checked (400 with the field named); those left out stay undefined. */
function checkFields(
  body: { url?: string | undefined; events?: string[] | undefined; description?: string | undefined; enabled?: boolean | undefined },
  policy: TargetPolicy,
): Partial<EndpointFields> {
  const fields: { url?: string; events?: WebhookEvent[]; description?: string; enabled?: boolean } = {};
  if (body.url !== undefined) {
    const verdict = checkTargetUrl(body.url, policy);
    if (!verdict.ok) throw new AppError(verdict.code, undefined, { field: 'url' });
    fields.url = verdict.url;
  }
  if (body.events !== undefined) {
    const checked = checkEvents(body.events);
    if (!checked.ok) throw new AppError(checked.code, undefined, { field: 'events' });
    fields.events = checked.events;
  }
  if (body.description !== undefined) {
    const description = checkDescription(body.description);
    if (description === undefined) throw new AppError('WEBHOOK_DESCRIPTION_INVALID', undefined, { field: 'description' });
    fields.description = description;
  }
  if (body.enabled !== undefined) fields.enabled = body.enabled;
  return fields;
}

function endpointId(raw: string): number {
  const id = parseId(raw);
  if (id === undefined) throw new AppError('WEBHOOK_NOT_FOUND');
  return id;
}

export async function webhooksRoutes(plain: FastifyInstance, deps: WebhooksDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, breaker, policy } = deps;
  const tags = ['webhooks'];

  /** What `query` finds of an endpoint, through the breaker; 404 when it finds no such endpoint (undefined or false). */
  const ofEndpoint = async <T>(query: () => Promise<T | undefined | false>): Promise<T> => {
    const found = await breaker.run(query);
    if (found === undefined || found === false) throw new AppError('WEBHOOK_NOT_FOUND');
    return found;
  };

  /** The endpoint `raw` names in the admin's workspace, or 404. */
  const endpointOf = (workspaceId: number, raw: string): Promise<WebhookEndpoint> => {
    const id = endpointId(raw);
    return ofEndpoint(() => findEndpoint(db, workspaceId, id));
  };

  app.get(
    '/webhooks',
    {
      schema: {
        summary: "The workspace's webhook endpoints",
        description: 'Admins only. Oldest first, each with its deliveries waiting and dead.',
        tags,
        security: SECURITY,
        response: { 200: WebhookList, ...errors(401, 403, 503) },
      },
    },
    async (request) => {
      const key = requireAdmin(request, 'webhooks');
      const endpoints = await breaker.run(() => listEndpoints(db, key.workspaceId));
      return { webhooks: endpoints.map(view) };
    },
  );

  app.post(
    '/webhooks',
    {
      schema: {
        summary: 'Add a webhook endpoint',
        description:
          `Admins only; at most ${WEBHOOK_ENDPOINTS_MAX} per workspace. Events of the workspace's links from now on are POSTed to url, ` +
          'signed by the Standard Webhooks scheme with the secret in the answer (shown again by GET /webhooks/{id}/secret).',
        tags,
        security: SECURITY,
        body: CreateWebhookBody,
        response: { 201: CreatedWebhook, ...errors(400, 401, 403, 409, 415, 503) },
      },
    },
    async (request, reply) => {
      const key = requireAdmin(request, 'webhooks');
      const fields = checkFields(request.body, policy);
      const secret = newSecret();
      const created = await breaker.run(() =>
        insertEndpoint(
          deps.pool,
          key.workspaceId,
          {
            url: fields.url as string,
            events: fields.events as WebhookEvent[],
            description: fields.description ?? '',
            enabled: fields.enabled ?? true,
          },
          secret,
          WEBHOOK_ENDPOINTS_MAX,
        ),
      );
      if (created === undefined) throw new AppError('WEBHOOK_LIMIT_REACHED');
      return reply.code(201).send({ ...view(created), secret });
    },
  );

  app.get(
    '/webhooks/:id',
    {
      schema: {
        summary: 'A webhook endpoint',
        tags,
        security: SECURITY,
        params: WebhookParams,
        response: { 200: WebhookView, ...errors(401, 403, 404, 503) },
      },
    },
    async (request) => {
      const key = requireAdmin(request, 'webhooks');
      return view(await endpointOf(key.workspaceId, request.params.id));
    },
  );

  app.patch(
    '/webhooks/:id',
    {
      schema: {
        summary: 'Change a webhook endpoint',
        description:
          'Admins only. A field left out is kept. A disabled endpoint is sent nothing new; its deliveries waiting are sent once it is enabled again.',
        tags,
        security: SECURITY,
        params: WebhookParams,
        body: PatchWebhookBody,
        response: { 200: WebhookView, ...errors(400, 401, 403, 404, 415, 503) },
      },
    },
    async (request) => {
      const key = requireAdmin(request, 'webhooks');
      const id = endpointId(request.params.id);
      const change = checkFields(request.body, policy);
      return view(await ofEndpoint(() => updateEndpoint(db, key.workspaceId, id, change)));
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        summary: 'Remove a webhook endpoint',
        description: 'Admins only. Its delivery log and the deliveries still waiting go with it.',
        tags,
        security: SECURITY,
        params: WebhookParams,
        response: { 204: { type: 'null', description: 'Removed.' }, ...errors(401, 403, 404, 503) },
      },
    },
    async (request, reply) => {
      const key = requireAdmin(request, 'webhooks');
      const id = endpointId(request.params.id);
      await ofEndpoint(() => deleteEndpoint(db, key.workspaceId, id));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/webhooks/:id/secret',
    {
      schema: {
        summary: "A webhook endpoint's signing secret",
        tags,
        security: SECURITY,
        params: WebhookParams,
        response: { 200: WebhookSecret, ...errors(401, 403, 404, 503) },
      },
    },
    async (request) => {
      const key = requireAdmin(request, 'webhooks');
      const id = endpointId(request.params.id);
      return secretView(await ofEndpoint(() => readSecret(db, key.workspaceId, id)));
    },
  );

  app.post(
    '/webhooks/:id/secret',
    {
      schema: {
        summary: "Rotate a webhook endpoint's signing secret",
        description:
          'Admins only. A new secret signs from now on; the one it replaces signs too (webhook-signature carries both) until ' +
          'previousSecretExpiresAt (WEBHOOK_SECRET_OVERLAP_HOURS), so that a receiver can switch without losing a request.',
        tags,
        security: SECURITY,
        params: WebhookParams,
        response: { 200: WebhookSecret, ...errors(401, 403, 404, 503) },
      },
    },
    async (request) => {
      const key = requireAdmin(request, 'webhooks');
      const id = endpointId(request.params.id);
      return secretView(await ofEndpoint(() => rotateSecret(db, key.workspaceId, id, newSecret(), deps.overlapMs)));
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        summary: "A webhook endpoint's delivery log",
        description:
          'Admins only. Newest first: each delivery with its state, tries, the last status, error and latency. ' +
          `Delivered and dead ones are kept WEBHOOK_LOG_RETENTION_DAYS. At most ${PAGE_MAX} a page; next pages with before=next.`,
        tags,
        security: SECURITY,
        params: WebhookParams,
        querystring: DeliveryQuery,
        response: { 200: DeliveryList, ...errors(400, 401, 403, 404, 503) },
      },
    },
    async (request) => {
      const key = requireAdmin(request, 'webhooks');
      const { state, before, limit } = request.query;
      const page = {
        state: state === undefined ? undefined : (DELIVERY_STATES as readonly string[]).includes(state) ? (state as DeliveryState) : null,
        before: before === undefined ? undefined : (parseId(before) ?? null),
        limit: limit === undefined ? PAGE_DEFAULT : (parseId(limit) ?? 0),
      };
      if (page.state === null || page.before === null || page.limit < 1 || page.limit > PAGE_MAX)
        throw new AppError('WEBHOOK_QUERY_INVALID');
      const endpoint = await endpointOf(key.workspaceId, request.params.id);
      const deliveries = await breaker.run(() =>
        listDeliveries(db, endpoint.id, { state: page.state ?? undefined, before: page.before ?? undefined, limit: page.limit }),
      );
      const last = deliveries.at(-1);
      return {
        deliveries: deliveries.map(deliveryView),
        next: deliveries.length === page.limit && last !== undefined ? String(last.id) : null,
      };
    },
  );

  app.post(
    '/webhooks/:id/deliveries/:delivery/resend',
    {
      schema: {
        summary: 'Send a delivery again',
        description:
          'Admins only. A new delivery of the same event (the same webhook-id, so a receiver can tell it has it), due at once, ' +
          'outside the order of its link’s other events; the one resent stays in the log as it was.',
        tags,
        security: SECURITY,
        params: DeliveryParams,
        response: { 202: DeliveryView, ...errors(401, 403, 404, 503) },
      },
    },
    async (request, reply) => {
      const key = requireAdmin(request, 'webhooks');
      const endpoint = await endpointOf(key.workspaceId, request.params.id);
      const deliveryId = parseId(request.params.delivery);
      if (deliveryId === undefined) throw new AppError('WEBHOOK_DELIVERY_NOT_FOUND');
      const resent = await breaker.run(() => resendDelivery(db, endpoint.id, deliveryId));
      if (resent === undefined) throw new AppError('WEBHOOK_DELIVERY_NOT_FOUND');
      return reply.code(202).send(deliveryView(resent));
    },
  );
}
