// GET, POST, PATCH and DELETE /webhooks: a workspace's webhook endpoints, its admins' alone (an
// endpoint reads every link of the workspace as it changes). Its secret is shown when it is made
// and by GET /webhooks/:id/secret, rotated by POST /webhooks/:id/secret with an overlap during
// which both sign. GET /webhooks/:id/deliveries is its delivery log; a delivery of it is sent again
// (same webhook-id) by POST /webhooks/:id/deliveries/:delivery/resend, WEBHOOK_RESENDS_PER_MINUTE a
// workspace, shared with the test events of POST /webhooks/:id/test (test-event-routes.ts). The rules are the service's
// (service.ts); the worker that sends them is worker.ts.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AttemptBudget } from '../api/attempt-budget.ts';
import { SECURITY } from '../api/schemas.ts';
import { actorOf, type Actor } from '../audit/audit.ts';
import { requireAdmin } from '../auth/authenticate.ts';
import { WEBHOOK_ENDPOINTS_MAX } from '../core/webhooks.ts';
import { AppError, errorResponses as errors } from '../errors.ts';
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
import { PAGE_MAX, type WebhookService } from './service.ts';
import { deliveryView, secretView, view } from './views.ts';

export interface WebhooksDeps {
  readonly webhooks: WebhookService;
  /** Resends per workspace in fixed one-minute windows, shared by the instances through Redis when it is on. */
  readonly resends: AttemptBudget;
  readonly resendsPerMinute: number;
}

export const RESEND_WINDOW_MS = 60_000;

/** The workspace of the request's key, if it is an admin's: webhooks are admins' alone. */
function admin(request: FastifyRequest): number {
  return requireAdmin(request, 'webhooks').workspaceId;
}

/** A change's workspace, as admin() has it, and who makes it (the audit log's actor). */
function adminActing(request: FastifyRequest): { workspaceId: number; actor: Actor } {
  const key = requireAdmin(request, 'webhooks');
  return { workspaceId: key.workspaceId, actor: actorOf(key, request.ip) };
}

const TAGS = ['webhooks'];

const LIST_WEBHOOKS = {
  summary: "The workspace's webhook endpoints",
  description: 'Admins only. Oldest first, each with its deliveries waiting and dead.',
  tags: TAGS,
  security: SECURITY,
  response: { 200: WebhookList, ...errors(401, 403, 503) },
};

const ADD_WEBHOOK = {
  summary: 'Add a webhook endpoint',
  description:
    `Admins only; at most ${WEBHOOK_ENDPOINTS_MAX} per workspace. Events of the workspace's links from now on are POSTed to url, ` +
    'signed by the Standard Webhooks scheme with the secret in the answer (shown again by GET /webhooks/{id}/secret).',
  tags: TAGS,
  security: SECURITY,
  body: CreateWebhookBody,
  response: { 201: CreatedWebhook, ...errors(400, 401, 403, 409, 415, 503) },
};

const READ_WEBHOOK = {
  summary: 'A webhook endpoint',
  tags: TAGS,
  security: SECURITY,
  params: WebhookParams,
  response: { 200: WebhookView, ...errors(401, 403, 404, 503) },
};

const CHANGE_WEBHOOK = {
  summary: 'Change a webhook endpoint',
  description:
    'Admins only. A field left out is kept. A disabled endpoint is sent nothing new; its deliveries waiting are sent once it is enabled again.',
  tags: TAGS,
  security: SECURITY,
  params: WebhookParams,
  body: PatchWebhookBody,
  response: { 200: WebhookView, ...errors(400, 401, 403, 404, 415, 503) },
};

const REMOVE_WEBHOOK = {
  summary: 'Remove a webhook endpoint',
  description: 'Admins only. Its delivery log and the deliveries still waiting go with it.',
  tags: TAGS,
  security: SECURITY,
  params: WebhookParams,
  response: { 204: { type: 'null', description: 'Removed.' }, ...errors(401, 403, 404, 503) },
};

const READ_WEBHOOK_SECRET = {
  summary: "A webhook endpoint's signing secret",
  tags: TAGS,
  security: SECURITY,
  params: WebhookParams,
  response: { 200: WebhookSecret, ...errors(401, 403, 404, 503) },
};

const ROTATE_WEBHOOK_SECRET = {
  summary: "Rotate a webhook endpoint's signing secret",
  description:
    'Admins only. A new secret signs from now on; the one it replaces signs too (webhook-signature carries both) until ' +
    'previousSecretExpiresAt (WEBHOOK_SECRET_OVERLAP_HOURS), so that a receiver can switch without losing a request.',
  tags: TAGS,
  security: SECURITY,
  params: WebhookParams,
  response: { 200: WebhookSecret, ...errors(401, 403, 404, 503) },
};

const LIST_DELIVERIES = {
  summary: "A webhook endpoint's delivery log",
  description:
    'Admins only. Newest first: each delivery with its state, tries, the last status, error and latency. ' +
    `Delivered and dead ones are kept WEBHOOK_LOG_RETENTION_DAYS. At most ${PAGE_MAX} a page; next pages with before=next.`,
  tags: TAGS,
  security: SECURITY,
  params: WebhookParams,
  querystring: DeliveryQuery,
  response: { 200: DeliveryList, ...errors(400, 401, 403, 404, 503) },
};

const RESEND_DELIVERY = {
  summary: 'Send a delivery again',
  description:
    'Admins only. A new delivery of the same event (the same webhook-id, so a receiver can tell it has it), due at once, ' +
    'outside the order of its link’s other events; the one resent stays in the log as it was.',
  tags: TAGS,
  security: SECURITY,
  params: DeliveryParams,
  response: { 202: DeliveryView, ...errors(401, 403, 404, 429, 503) },
};

export async function webhooksRoutes(plain: FastifyInstance, deps: WebhooksDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { webhooks } = deps;

  app.get(
    '/webhooks',
    {
      schema: LIST_WEBHOOKS,
    },
    async function listWebhooks(request) {
      return { webhooks: (await webhooks.list(admin(request))).map(view) };
    },
  );

  app.post(
    '/webhooks',
    {
      schema: ADD_WEBHOOK,
    },
    async function addWebhook(request, reply) {
      const { workspaceId, actor } = adminActing(request);
      const { endpoint, secret } = await webhooks.add(workspaceId, request.body, actor);
      return reply.code(201).send({ ...view(endpoint), secret });
    },
  );

  app.get(
    '/webhooks/:id',
    {
      schema: READ_WEBHOOK,
    },
    async function readWebhook(request) {
      return view(await webhooks.get(admin(request), request.params.id));
    },
  );

  app.patch(
    '/webhooks/:id',
    {
      schema: CHANGE_WEBHOOK,
    },
    async function changeWebhook(request) {
      const { workspaceId, actor } = adminActing(request);
      return view(await webhooks.change(workspaceId, request.params.id, request.body, actor));
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: REMOVE_WEBHOOK,
    },
    async function removeWebhook(request, reply) {
      const { workspaceId, actor } = adminActing(request);
      await webhooks.remove(workspaceId, request.params.id, actor);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/webhooks/:id/secret',
    {
      schema: READ_WEBHOOK_SECRET,
    },
    async function readWebhookSecret(request) {
      return secretView(await webhooks.secret(admin(request), request.params.id));
    },
  );

  app.post(
    '/webhooks/:id/secret',
    {
      schema: ROTATE_WEBHOOK_SECRET,
    },
    async function rotateWebhookSecret(request) {
      const { workspaceId, actor } = adminActing(request);
      return secretView(await webhooks.rotate(workspaceId, request.params.id, actor));
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: LIST_DELIVERIES,
    },
    async function listDeliveries(request) {
      const { deliveries, next } = await webhooks.deliveries(admin(request), request.params.id, request.query);
      return { deliveries: deliveries.map(deliveryView), next };
    },
  );

  app.post(
    '/webhooks/:id/deliveries/:delivery/resend',
    {
      schema: RESEND_DELIVERY,
    },
    async function resendDelivery(request, reply) {
      const workspaceId = admin(request);
      // Counted before the lookup: a resend is a request this service makes to an address of the admin's choosing.
      const reserved = await deps.resends.take(String(workspaceId));
      if (!reserved.ok) {
        const seconds = reserved.retryAfterSeconds;
        reply.header('retry-after', String(seconds));
        throw new AppError(
          'WEBHOOK_RESEND_RATE_LIMITED',
          `This workspace sent ${deps.resendsPerMinute} deliveries again in the last minute; retry after ${seconds} s.`,
        );
      }
      const resent = await webhooks.resend(workspaceId, request.params.id, request.params.delivery);
      return reply.code(202).send(deliveryView(resent));
    },
  );
}
