// The tiers below the LRU, each on services whose LRU holds one entry, so that every request goes
// below it, batched per event-loop turn: Redis (`redis`) against one GET per request and ioredis's
// auto-pipelining, and Postgres (`postgres`, Redis off) against one SELECT per request.
//
//   REDIS_URL=redis://127.0.0.1:6379 npm run load -- --scenario redis,postgres

import type { Variant } from '../measure.ts';
import type { OnItsOwn } from '../scenario.ts';
import { mainAnswering } from '../service.ts';
import { servicesSideBySide } from '../side-by-side.ts';
import { ratio, withDetail } from '../targets.ts';
import { fixed } from '../traffic.ts';

// An LRU of one entry cannot help: every request goes below it.
const NO_CACHE = { CACHE_MAX_ENTRIES: '1', NEGATIVE_MAX_ENTRIES: '1' };

const WITHOUT_URL = 'needs services configured with a one-entry LRU (not with --url)';

export const redis: OnItsOwn = {
  name: 'redis',
  // Beside the main service (its hot reference) on a database it can share; after it on the
  // embedded engine, which one process at a time opens.
  needs: ({ sharedDatabase }) => [sharedDatabase ? 'service' : 'links', 'redis', 'processes'],
  answers: ['302'],
  targets: [
    // Against the hot path measured in the same rounds when there is one (not on an embedded database).
    (runs) =>
      ratio('redis ≥ 0.80 × hot', 'redis', runs.find('redis · hot reference') === undefined ? 'hot' : 'redis · hot reference', 0.8)(runs),
    (runs) => {
      const [run, pipelined] = [runs.find('redis'), runs.find('redis · auto-pipelining')];
      return withDetail(
        ratio('redis ≥ 1.5 × one GET per request', 'redis', 'redis · one GET per request', 1.5)(runs),
        run !== undefined && pipelined !== undefined && runs.invalid(run) === undefined && runs.invalid(pipelined) === undefined
          ? `${(run.rps / pipelined.rps).toFixed(2)}× ioredis auto-pipelining`
          : undefined,
      );
    },
  ],
  async run(context) {
    const { service, setup } = context;
    const why = !setup.local ? WITHOUT_URL : service.redis === null ? 'needs a Redis: set REDIS_URL or --redis-url' : undefined;
    if (why !== undefined || service.redis === null)
      return ['redis', 'redis · one GET per request', 'redis · auto-pipelining'].map((label) => context.skip('redis', label, why ?? ''));
    // Every seeded link is in Redis (written through by the seeding service, same key prefix).
    // REDIS_BATCH_MAX=1 turns the batch fetcher into one GET per request; with
    // REDIS_AUTO_PIPELINING=true ioredis merges those GETs of one turn into one pipeline. The
    // main service, its LRU warm, runs in the same rounds as the hot reference (not with an
    // embedded database, which one process at a time can open).
    const onRedis = { ...NO_CACHE, ...service.redis.env };
    const reference: Variant[] = [];
    if (setup.sharedDatabase && service.main !== null) {
      await service.warm();
      reference.push({
        scenario: 'redis',
        variant: 'service, every link in the LRU',
        label: 'redis · hot reference',
        ...mainAnswering(service),
        connections: context.options.connections,
        requests: fixed(service.hotPaths),
      });
    }
    return servicesSideBySide(
      context,
      'redis',
      [
        { variant: 'service', label: 'redis', env: onRedis },
        { variant: 'one GET per request', label: 'redis · one GET per request', env: { ...onRedis, REDIS_BATCH_MAX: '1' } },
        {
          variant: 'ioredis auto-pipelining',
          label: 'redis · auto-pipelining',
          env: { ...onRedis, REDIS_BATCH_MAX: '1', REDIS_AUTO_PIPELINING: 'true' },
        },
      ],
      reference,
    );
  },
};

export const postgres: OnItsOwn = {
  name: 'postgres',
  needs: ['links', 'processes'],
  answers: ['302'],
  targets: [ratio('postgres ≥ 2.5 × one SELECT per request', 'postgres', 'postgres · one SELECT per request', 2.5)],
  async run(context) {
    if (!context.setup.local) return [context.skip('postgres', 'postgres', WITHOUT_URL)];
    // Redis off: READ_BATCH_MAX=1 turns the same code path into one SELECT per request.
    return servicesSideBySide(context, 'postgres', [
      { variant: 'service', label: 'postgres', env: NO_CACHE },
      { variant: 'one SELECT per request', label: 'postgres · one SELECT per request', env: { ...NO_CACHE, READ_BATCH_MAX: '1' } },
    ]);
  },
};
