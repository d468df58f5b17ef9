// /healthz: the process answers. /readyz: this instance should get traffic: Postgres answers,
// the breaker is not open, the write queue is not saturated, and it is not shutting down. The
// state of Redis and of the read replicas is reported but never fails readiness: without them,
// the instance still answers (from its LRU and the primary).

import type { FastifyInstance } from 'fastify';
import type { DbBreaker } from '../db/breaker.ts';
import type { Queryable } from '../db/pool.ts';
import type { ReplicaSet } from '../db/replicas.ts';
import type { RedisTier } from '../redis/tier.ts';
import type { Lifecycle } from '../part.ts';
import type { WriteQueue } from '../write/write-queue.ts';

export interface HealthDeps {
  db: Queryable;
  breaker: DbBreaker;
  queue: WriteQueue;
  lifecycle: Lifecycle;
  pingTimeoutMs: number;
  /** Informative: an instance without Redis still serves from its LRU and Postgres. */
  redis: RedisTier | null;
  /** Informative too: without a replica, the primary takes the reads. */
  replicas: Pick<ReplicaSet, 'status'> | null;
}

export function registerHealth(app: FastifyInstance, deps: HealthDeps): void {
  app.get('/healthz', { schema: { summary: 'Liveness: 200 while the process runs', tags: ['service'] } }, async () => ({ status: 'ok' }));

  const readySchema = { summary: 'Readiness: 200 when Postgres answers and the instance takes traffic, else 503', tags: ['service'] };
  app.get('/readyz', { schema: readySchema }, async (_request, reply) => {
    const checks = {
      accepting: !deps.lifecycle.draining,
      breakerClosed: deps.breaker.state !== 'open',
      writeQueueHasRoom: !deps.queue.saturated,
      postgresAnswers: await ping(deps.db, deps.pingTimeoutMs),
    };
    const ready = Object.values(checks).every(Boolean);
    reply.code(ready ? 200 : 503).header('cache-control', 'no-store');
    return {
      status: ready ? 'ready' : 'not ready',
      checks,
      breaker: deps.breaker.state,
      queueDepth: deps.queue.depth,
      redis: deps.redis?.status() ?? 'off',
      replicas: deps.replicas?.status() ?? 'off',
    };
  });
}

async function ping(db: Queryable, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, false);
  });
  try {
    return await Promise.race([
      db.query('SELECT 1').then(
        () => true,
        () => false,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
