// POST /webhooks/:id/test: a test event for one endpoint, through the outbox like any event
// (test-event.ts), counted with resends against WEBHOOK_RESENDS_PER_MINUTE.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { SECURITY } from '../api/schemas.ts';
import { requireAdmin } from '../auth/authenticate.ts';
import { AppError, errorResponses as errors } from '../errors.ts';
import type { WebhooksDeps } from './routes.ts';
import { TestEventSent, WebhookParams } from './schemas.ts';
import { TEST_EVENT } from './test-event.ts';

export interface TestEventDeps extends WebhooksDeps {
  /** Looks for due deliveries at once (the worker's wake): the answer the admin waits for comes sooner. */
  readonly wake: () => void;
}

const SEND_TEST_EVENT = {
  summary: 'Send a test event to a webhook endpoint',
  description:
    `Admins only. Queues a \`${TEST_EVENT}\` event for this endpoint alone, whatever events it takes, delivered as every event is: ` +
    'signed, tried again on failure, and shown in its delivery log under deliveryId. Its data says it is a test, with the ' +
    'workspace and the endpoint; nothing happened to any link. 409 WEBHOOK_DISABLED for a disabled endpoint. Counted with resends: ' +
    'WEBHOOK_RESENDS_PER_MINUTE a workspace (429 WEBHOOK_TEST_RATE_LIMITED, with Retry-After).',
  tags: ['webhooks'],
  security: SECURITY,
  params: WebhookParams,
  response: { 202: TestEventSent, ...errors(401, 403, 404, 409, 429, 503) },
};

export async function testEventRoutes(plain: FastifyInstance, deps: TestEventDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/webhooks/:id/test', { schema: SEND_TEST_EVENT }, async function sendTestEvent(request, reply) {
    const { workspaceId } = requireAdmin(request, 'webhooks');
    // The resends' budget: both are requests this service makes, on demand, to an address of the admin's choosing.
    const reserved = await deps.resends.take(String(workspaceId));
    if (!reserved.ok) {
      const seconds = reserved.retryAfterSeconds;
      reply.header('retry-after', String(seconds));
      throw new AppError(
        'WEBHOOK_TEST_RATE_LIMITED',
        `This workspace sent ${deps.resendsPerMinute} test events and deliveries again in the last minute; retry after ${seconds} s.`,
      );
    }
    const delivery = await deps.webhooks.sendTest(workspaceId, request.params.id);
    deps.wake();
    return reply.code(202).send({ deliveryId: delivery.id, webhookId: delivery.msgId });
  });
}
