// The read path below the edge: the table from Host to domain, the LRU, the read replicas, the
// tiered resolver (LRU, Redis, Postgres), the code space that rules out codes nobody was given, and
// the propagation of committed changes to every tier.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createLinkCache, type LinkCache } from '../cache/link-cache.ts';
import { createCodeCodec, type CodeCodec } from '../core/codes.ts';
import { createPermutation } from '../core/permutation.ts';
import { requestHostName } from '../core/domains.ts';
import { BrandReader } from '../db/brand-rows.ts';
import { readServedDomains } from '../db/domain-rows.ts';
import { findLinks } from '../db/links.ts';
import { ReplicaSet } from '../db/replicas.ts';
import { CodeSpace } from './code-space.ts';
import { Resolver } from './resolver.ts';
import type { PartOptions } from '../part.ts';
import { watchReplicas } from '../db/metrics.ts';
import { HostTable } from './hosts.ts';
import { LookupCounts } from './lookup-counts.ts';
import { Propagation } from './propagation.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Which domain a request's host names. */
    hosts: HostTable;
    cache: LinkCache;
    resolver: Resolver;
    codeSpace: CodeSpace;
    /** How generated codes are made from ids. */
    codec: CodeCodec;
    /** Null: no read replicas configured. */
    replicas: ReplicaSet | null;
    /** The resolver's counts of its lookups; null with METRICS_ENABLED=false. */
    lookupCounts: LookupCounts | null;
    /** Tells every tier of links just committed. */
    propagation: Propagation;
  }
}

export default fp(
  async function readPathPart(app: FastifyInstance, { config, log }: PartOptions) {
    const { db, breaker, redis, metrics } = app;
    const lookups = metrics === null ? null : new LookupCounts(metrics);
    const brands = new BrandReader();
    const hosts = new HostTable({
      defaultHost: requestHostName(new URL(config.baseUrl).host),
      defaultAliases: config.defaultDomainHosts,
      // Not through the breaker, as the code space's reads: a background read that fails only keeps
      // the table it has, and must neither open the breaker of requests nor take its trial call.
      read: () => readServedDomains(db, brands),
      defaultRooted: config.rootRedirect !== 'none',
      verifiedOnly: config.domainVerification,
      log,
    });
    app.addHook('onClose', async () => {
      hosts.stop();
    });
    await hosts.start();
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
    const resolver = new Resolver({
      cache,
      source: (codes) => breaker.run(() => findLinks(db, codes)),
      replicas,
      maxBatch: config.readBatchMax,
      shared: redis?.store ?? null,
      sharedMaxBatch: config.redisBatchMax,
      lastKnownTtlMs: config.cacheTtlMs,
      hearing: () => redis?.hearing() ?? true,
      stats: lookups,
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

    app.decorate('hosts', hosts);
    app.decorate('cache', cache);
    app.decorate('resolver', resolver);
    app.decorate('codeSpace', codeSpace);
    app.decorate('codec', codec);
    app.decorate('replicas', replicas);
    app.decorate('lookupCounts', lookups);
    if (metrics !== null) watchReplicas(metrics, replicas);
    app.decorate('propagation', new Propagation(cache, resolver, redis?.store ?? null));
  },
  { name: 'read-path', dependencies: ['postgres', 'redis'] },
);
