// The write path as a part: ids for generated codes and the group-commit queue (write-queue.ts),
// writing through link-writes.ts. Registered after the parts that write events (webhooks) and
// count clicks (analytics), so that it closes before them: the queue drains while everything it
// needs is still open.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { reserveIdBlock } from '../db/links.ts';
import { BATCH_BOUNDS, type Metrics } from '../metrics/metrics.ts';
import type { PartOptions } from '../part.ts';
import { IdAllocator } from './id-allocator.ts';
import { LinkWrites } from './link-writes.ts';
import { WriteQueue } from './write-queue.ts';

declare module 'fastify' {
  interface FastifyInstance {
    writeQueue: WriteQueue;
  }
}

/** Observes the size of each group-commit batch. */
function writeBatches(metrics: Metrics): (size: number) => void {
  const sizes = metrics.histogram('shortener_write_batch_size', 'Links per group-commit INSERT of the write queue.', BATCH_BOUNDS);
  return (size) => sizes.observe(size);
}

async function writePathPart(app: FastifyInstance, { config, log }: PartOptions): Promise<void> {
  const { db, breaker, codeSpace, codec, propagation, metrics } = app;
  const ids = new IdAllocator(() => breaker.run(() => reserveIdBlock(db)));
  const writes = new LinkWrites({ db, breaker, ids, codec, codeSpace, propagation });
  const queue = new WriteQueue(writes, {
    maxBatch: config.writeBatchMax,
    maxQueued: config.writeQueueMax,
    workspaceMax: Math.max(1, Math.floor(config.writeQueueMax * config.writeQueueWorkspaceShare)),
    batched: metrics === null ? undefined : writeBatches(metrics),
    timeoutMs: config.writeTimeoutMs,
    log,
  });
  if (metrics !== null) metrics.gauge('shortener_write_queue_depth', 'Links waiting in the write queue.', (set) => set(queue.depth));
  app.addHook('onClose', async () => {
    await queue.close();
  });
  app.decorate('writeQueue', queue);
}

export default fp(writePathPart, { name: 'write-path', dependencies: ['postgres', 'read-path'] });
