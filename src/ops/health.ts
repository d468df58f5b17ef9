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
import type { ListStatus } from '../links/blocklists.ts';
import type { WriteQueue } from '../write/write-queue.ts';

/** How long an answer of the probe stands: requests within it share it. */
const PROBE_INTERVAL_MS = 1000;

export interface HealthDeps {
  /** Not the pool of redirects and writes: the readiness probe's queries wait for none of theirs. */
  db: Queryable;
  breaker: DbBreaker;
  queue: WriteQueue;
  lifecycle: Lifecycle;
  pingTimeoutMs: number;
  /** Informative: an instance without Redis still serves from its LRU and Postgres. */
  redis: RedisTier | null;
  /** Informative too: without a replica, the primary takes the reads. */
  replicas: Pick<ReplicaSet, 'status'> | null;
  /** Informative too: a list that fails to load keeps its last good version. Absent: none configured. */
  blocklists?: () => readonly ListStatus[];
}

export function registerHealth(app: FastifyInstance, deps: HealthDeps): void {
  const probe = new PostgresProbe(deps.db, deps.pingTimeoutMs);
  app.get('/healthz', { schema: { summary: 'Liveness: 200 while the process runs', tags: ['service'] } }, async () => ({ status: 'ok' }));

  const readySchema = { summary: 'Readiness: 200 when Postgres answers and the instance takes traffic, else 503', tags: ['service'] };
  app.get('/readyz', { schema: readySchema }, async (_request, reply) => {
    const checks = {
      accepting: !deps.lifecycle.draining,
      breakerClosed: deps.breaker.state !== 'open',
      writeQueueHasRoom: !deps.queue.saturated,
      postgresAnswers: await probe.answers(),
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
      ...(deps.blocklists === undefined ? {} : { blocklists: deps.blocklists() }),
    };
  });
}

/** Asks Postgres whether it answers at most once per PROBE_INTERVAL_MS; asked meanwhile, it gives the answer in flight or the last one. */
export class PostgresProbe {
  readonly #db: Queryable;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  #startedAt = Number.NEGATIVE_INFINITY;
  #answer: Promise<boolean> = Promise.resolve(false);

  constructor(db: Queryable, timeoutMs: number, now: () => number = Date.now) {
    this.#db = db;
    this.#timeoutMs = timeoutMs;
    this.#now = now;
  }

  answers(): Promise<boolean> {
    const now = this.#now();
    if (now - this.#startedAt >= PROBE_INTERVAL_MS) {
      this.#startedAt = now;
      this.#answer = ping(this.#db, this.#timeoutMs);
    }
    return this.#answer;
  }
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
