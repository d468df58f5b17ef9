// The write path: ids for generated codes, the group-commit queue, and changes of existing links,
// each told to Redis, every instance and this LRU before it is acknowledged. Closed first: it
// drains while everything it needs is still open.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ShortCode } from '../core/codes.ts';
import { keyOf } from '../core/domains.ts';
import { insertLinks, reserveIdBlock } from '../db/links.ts';
import { AppError } from '../errors.ts';
import { IdAllocator } from './id-allocator.ts';
import { createLinkChanges, createPropagate, type LinkChanges } from './link-changes.ts';
import { WriteQueue } from './write-queue.ts';
import type { PartOptions } from '../part.ts';

declare module 'fastify' {
  interface FastifyInstance {
    writeQueue: WriteQueue;
    /** Changes to existing links, propagated to every instance. */
    links: LinkChanges;
  }
}

export default fp(
  async function writePathPart(app: FastifyInstance, { config, log }: PartOptions) {
    const { db, breaker, redis, cache, resolver, codeSpace, codec, metrics } = app;
    const propagate = createPropagate(cache, resolver, redis?.store ?? null);
    const ids = new IdAllocator(() => breaker.run(() => reserveIdBlock(db)));
    const changes = createLinkChanges(db, breaker, propagate);
    const queue = new WriteQueue({
      insert: (links) => breaker.run(() => insertLinks(db, links)),
      async allocate(count) {
        const taken = await ids.take(count);
        return taken.map((id): ShortCode => {
          if (id >= codec.size) throw new AppError('CODES_EXHAUSTED');
          return codec.fromId(id);
        });
      },
      available: () => breaker.state !== 'open',
      async committed(links) {
        for (const link of links) if (!link.generated) codeSpace.added(keyOf(link));
        await propagate(links);
      },
      ackDelayMs: (alias) => codeSpace.ackDelayMs(alias),
      async discard(written) {
        await Promise.all(written.map((link) => changes.remove(link, false)));
      },
      maxBatch: config.writeBatchMax,
      maxQueued: config.writeQueueMax,
      batched: metrics?.writeBatch,
      timeoutMs: config.writeTimeoutMs,
      log,
    });
    app.addHook('onClose', async () => {
      await queue.close();
    });
    app.decorate('writeQueue', queue);
    app.decorate('links', changes);
  },
  { name: 'write-path', dependencies: ['postgres', 'redis', 'read-path'] },
);
