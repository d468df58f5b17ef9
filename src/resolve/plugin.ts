// The read path below the edge: the LRU, the read replicas, the tiered resolver (LRU, Redis,
// Postgres) and the code space that rules out codes nobody was given.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createLinkCache, type LinkCache } from '../cache/link-cache.ts';
import { createCodeCodec, type CodeCodec } from '../core/codes.ts';
import { createPermutation } from '../core/permutation.ts';
import { findLinks } from '../db/links.ts';
import { ReplicaSet } from '../db/replicas.ts';
import { CodeSpace } from './code-space.ts';
import { createResolver, type Resolver } from './resolver.ts';
import type { PartOptions } from '../part.ts';

declare module 'fastify' {
  interface FastifyInstance {
    cache: LinkCache;
    resolver: Resolver;
    codeSpace: CodeSpace;
    /** How generated codes are made from ids. */
    codec: CodeCodec;
    /** Null: no read replicas configured. */
    replicas: ReplicaSet | null;
  }
}

export default fp(
  async function readPathPart(app: FastifyInstance, { config, log }: PartOptions) {
    const { db, breaker, redis, metrics } = app;
    const cache = createLinkCache(config);
    // Its pools connect only when asked; it probes once the app is built.
    const replicas = config.databaseReplicaUrls.length === 0 ? null : new ReplicaSet(config, log);
    if (replicas !== null) {
      app.addHook('onClose', async () => {
        await replicas.close();
      });
      app.addHook('onReady', async () => {
        replicas.start();
      });
    }
    const resolver = createResolver({
      cache,
      source: (codes) => breaker.run(() => findLinks(db, codes)),
      replicas,
      maxBatch: config.readBatchMax,
      shared: redis?.store ?? null,
      sharedMaxBatch: config.redisBatchMax,
      lastKnownTtlMs: config.cacheTtlMs,
      hearing: () => redis?.hearing() ?? true,
      stats: metrics?.lookups ?? null,
    });
    redis?.listen({
      changed: (code) => resolver.invalidate(code),
      // The last known answers stay: they are what an outage of Postgres too would serve.
      deaf: (maxTtlMs) => cache.reset(maxTtlMs),
      missed() {
        cache.reset();
        resolver.missedInvalidations();
      },
    });

    const codec = createCodeCodec(createPermutation(config.codeSecret, config.codeLength), config.codeLength);
    const codeSpace = new CodeSpace({ db, codec, codeLength: config.codeLength, codeSecret: config.codeSecret, log });
    app.addHook('onClose', async () => {
      codeSpace.stop();
    });
    await codeSpace.start();

    app.decorate('cache', cache);
    app.decorate('resolver', resolver);
    app.decorate('codeSpace', codeSpace);
    app.decorate('codec', codec);
    app.decorate('replicas', replicas);
  },
  { name: 'read-path', dependencies: ['postgres', 'redis'] },
);
