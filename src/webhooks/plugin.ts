// Webhooks as a part: the worker that delivers the outbox's events (worker.ts), in every instance,
// and the routes that manage a workspace's endpoints. Registered before the parts that write events
// (the click flusher, the write queue), so that it closes after them and before Postgres: the sends
// under way end and are recorded.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AttemptBudget } from '../api/attempt-budget.ts';
import { clientCounter } from '../api/counters.ts';
import { targetPolicyOf } from '../core/target-policy.ts';
import type { PartOptions } from '../part.ts';
import { webhookBody } from './body.ts';
import { RESEND_WINDOW_MS, webhooksRoutes } from './routes.ts';
import { webhookTries } from './metrics.ts';
import { WebhookSender } from './sender.ts';
import { WebhookService } from './service.ts';
import { WebhookStore } from './store.ts';
import { testEventRoutes } from './test-event-routes.ts';
import { WebhookWorker } from './worker.ts';

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: WebhookWorker;
  }
}

async function webhooksPart(app: FastifyInstance, { config, log }: PartOptions): Promise<void> {
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
    expiringNoticeMs: config.linkExpiringNoticeMs,
    log,
    tried: metrics === null ? undefined : webhookTries(metrics),
  });
  app.addHook('onClose', async () => {
    await worker.close();
    sender.close();
  });
  worker.start();
  const policy = targetPolicyOf({ ...config, allowPrivateTargets: config.webhookAllowPrivate });
  const webhooks = new WebhookService(new WebhookStore(app.db, pool, app.breaker), policy, config.webhookSecretOverlapMs);
  const resendCounts = clientCounter(app.redis?.client ?? null, config.redisKeyPrefix, log, 'resends:', 'webhook resend limits');
  const resends = new AttemptBudget(resendCounts, config.webhookResendsPerMinute, RESEND_WINDOW_MS);
  const routes = { webhooks, resends, resendsPerMinute: config.webhookResendsPerMinute };
  await app.register(webhooksRoutes, routes);
  await app.register(testEventRoutes, { ...routes, wake: () => worker.wake() });
  app.decorate('webhooks', worker);
}

export default fp(webhooksPart, { name: 'webhooks', dependencies: ['postgres', 'domains', 'auth'] });
