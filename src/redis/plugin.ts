// The Redis tier (REDIS_URL or REDIS_CLUSTER_URLS): the cache every instance shares and the channel
// of their changes; null when neither is set. It connects in the background.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createRedisTier, type RedisTier } from './tier.ts';
import type { PartOptions } from '../part.ts';

declare module 'fastify' {
  interface FastifyInstance {
    redis: RedisTier | null;
  }
}

export default fp(
  async function redisPart(app: FastifyInstance, { config, log }: PartOptions) {
    const tier = createRedisTier(config, log);
    if (tier !== null) {
      app.addHook('onClose', async () => {
        tier.close();
      });
    }
    app.decorate('redis', tier);
  },
  { name: 'redis' },
);
