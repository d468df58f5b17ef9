// Webhooks: the worker that delivers the outbox's events (webhooks/worker.ts), in every
// instance. Its routes are the API's (webhooks/routes.ts). Closed after the parts that write events
// (the write queue, the click flusher) and before Postgres: the sends under way end and are recorded.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { webhookBody } from './body.ts';
import { WebhookSender } from './sender.ts';
import { WebhookWorker } from './worker.ts';
import type { PartOptions } from '../part.ts';

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: WebhookWorker;
  }
}

export default fp(
  async function webhooksPart(app: FastifyInstance, { config, log }: PartOptions) {
    const { pool, shortUrls, metrics } = app;
    const sender = new WebhookSender({ timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivate });
    const worker = new WebhookWorker({
      pool,
      send: (message) => sender.send(message),
      render: (delivery) => webhookBody(delivery, shortUrls),
      schedule: config.webhookRetrySchedule,
      timeoutMs: config.webhookTimeoutMs,
      maxInFlight: config.webhookMaxInFlight,
      pollMs: config.webhookPollMs,
      retentionDays: config.webhookLogRetentionDays,
      log,
      tried: metrics?.webhookTried,
    });
    app.addHook('onClose', async () => {
      await worker.close();
      sender.close();
    });
    worker.start();
    app.decorate('webhooks', worker);
  },
  { name: 'webhooks', dependencies: ['postgres', 'domains'] },
);
