// What the click stream costs the hot path: the same service with CLICK_STREAM=off, in the same
// rounds, both with analytics and the Redis tier, sent the analytics scenario's clicks; then both at
// the same offered rate, for the server CPU each spends per request. Both flush every
// CLICK_FLUSH_INTERVAL_MS (its default, 5 s): the stream's batches fall in the runs.
//
//   taskset -c 0 npm run load -- --server-cpus 1 --database-cpus 0 --scenario stream

import { privateRedisOn } from '../databases.ts';
import { fmtCpuPerRequest } from '../report/describe.ts';
import type { OnItsOwn } from '../scenario.ts';
import { hotSideBySide } from '../side-by-side.ts';
import { perCoreRatio, ratio } from '../targets.ts';
import { clicking } from '../visitors.ts';

/**
 * The second pair runs at this share of the slower one's rate: below what either serves on its
 * core, so that both answer the same requests and their server CPU compares.
 */
const STREAM_PACED_SHARE = 0.6;

export const stream: OnItsOwn = {
  name: 'stream',
  needs: ['links', 'redis', 'processes', 'wrk'],
  answers: ['302'],
  targets: [
    // What the click stream costs the hot path, analytics on both sides: the bar.
    ratio('click stream on ≥ 0.90 × off', 'stream', 'stream · off', 0.9),
    // The same, as server CPU per request at the same offered rate: what the stream costs the
    // service itself, apart from the CPU its Redis takes from the generator's core on this machine.
    perCoreRatio('click stream: requests per server CPU second, same rate, on ≥ 0.90 × off', 'stream · paced', 'stream · off · paced', 0.9),
  ],
  async run(context) {
    // With --database-cpus, a Redis of the run's own there, at nice 19 as its Postgres: the stream's
    // XADDs (a few µs of Redis each) are work a deployment's Redis does on its own machine, and on
    // a shared one here they would take the server's core or the generator's.
    const { databaseCpus } = context.options;
    const redis = databaseCpus === null ? context.service.redis : await privateRedisOn(context.processes, databaseCpus);
    if (redis === null)
      return ['stream', 'stream · off'].map((label) =>
        context.skip('stream', label, 'needs a Redis: set REDIS_URL or --redis-url, or --database-cpus'),
      );
    context.log(`stream: Redis is ${redis.label}`);
    const both = { TRUST_PROXY: 'loopback', BREAKER_TIMEOUT_MS: '30000', ANALYTICS_ENABLED: 'true', ...redis.env };
    const runs = await hotSideBySide(
      context,
      'stream',
      [
        { variant: 'CLICK_STREAM=redis', label: 'stream', env: { ...both, CLICK_STREAM: 'redis' } },
        { variant: 'CLICK_STREAM=off', label: 'stream · off', env: { ...both, CLICK_STREAM: 'off' } },
      ],
      clicking(17)(context.service.hotPaths),
      'CLICK_STREAM',
      { alone: true, paced: STREAM_PACED_SHARE },
    );
    for (const suffix of ['', ' · paced']) {
      const on = runs.find((run) => run.label === `stream${suffix}`);
      const off = runs.find((run) => run.label === `stream · off${suffix}`);
      if (on !== undefined && off !== undefined && on.rps > 0 && off.rps > 0)
        context.log(
          `stream${suffix}: ${(on.rps / off.rps).toFixed(3)}× off; server CPU per request ${fmtCpuPerRequest(on)}, off ${fmtCpuPerRequest(off)}`,
        );
    }
    return runs;
  },
};
