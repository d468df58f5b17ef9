// What click analytics costs the hot path: the same service with ANALYTICS_ENABLED=false, in the
// same rounds, sent the same clicks, each a visitor's as a browser or crawler sends it through a
// proxy on loopback (both trust it: the address analytics reads is the visitor's). A third variant
// flushes hourly, never within the run: the request path's share (record() and the per-turn
// enrichment) without the flushes' (their rows built, sent, and Postgres). Each runs alone: a flush
// of one would otherwise be done beside the other's run.
//
//   DATABASE_URL=postgres://… taskset -c 0 npm run load -- --server-cpus 1 --scenario hot,analytics
//   taskset -c 0 npm run load -- --server-cpus 1 --database-cpus 0 --scenario analytics --against ../old

import { basename } from 'node:path';
import type { Context } from '../context.ts';
import { fmtCpu, fmtCpuPerRequest } from '../report/describe.ts';
import type { OnItsOwn } from '../scenario.ts';
import { hotSideBySide, type Setting } from '../side-by-side.ts';
import { perCoreRatio } from '../targets.ts';
import { clicking } from '../visitors.ts';

export const analytics: OnItsOwn = {
  name: 'analytics',
  needs: ['links', 'processes', 'against', 'wrk'],
  answers: ['302'],
  // What click analytics cost the hot path, flushes and all, per second of server CPU (issue 39's bar).
  targets: [perCoreRatio('analytics on ≥ 0.95 × off, per server CPU-second', 'analytics', 'analytics · off', 0.95)],
  async run(context) {
    const runs = await hotSideBySide(context, 'analytics', settings(context), clicking(17)(context.service.hotPaths), 'ANALYTICS_ENABLED', {
      alone: true,
    });
    const against = context.options.against;
    const off = runs.find((run) => run.label === 'analytics · off');
    for (const label of ['analytics', 'analytics · no flush', ...(against === undefined ? [] : [`analytics · ${basename(against.dir)}`])]) {
      const on = runs.find((run) => run.label === label);
      if (on === undefined || off === undefined || on.rps === 0 || off.rps === 0) continue;
      context.log(
        `${label}: ${(on.rps / off.rps).toFixed(3)}× off; server CPU per request ${fmtCpuPerRequest(on)}, off ${fmtCpuPerRequest(off)}; ` +
          `CPU of the server and of ${on.generator ?? 'the generator'}: ${fmtCpu(on.cpu.server)} and ${fmtCpu(on.cpu.client)}, ` +
          `off ${fmtCpu(off.cpu.server)} and ${fmtCpu(off.cpu.client)}`,
      );
    }
    return runs;
  },
};

function settings(context: Context): Setting[] {
  // The rounds stop each service for seconds at a time (SIGSTOP): a flush under way must outlive
  // that, and Postgres ends a transaction idle for BREAKER_TIMEOUT_MS (db/pool.ts), as the
  // client gives up on a count write after it. Longer here for all three, so that a flush is not
  // failed by the rounds and done again (hot redirects never wait on Postgres).
  const proxied = { TRUST_PROXY: 'loopback', BREAKER_TIMEOUT_MS: '30000' };
  const against = context.options.against;
  return [
    { variant: 'ANALYTICS_ENABLED=true', label: 'analytics', env: { ...proxied, ANALYTICS_ENABLED: 'true' } },
    // ANALYTICS_FLUSH_INTERVAL_MS, where the service has it, writes the rollups apart from the counts.
    {
      variant: 'ANALYTICS_ENABLED=true, CLICK_FLUSH_INTERVAL_MS=ANALYTICS_FLUSH_INTERVAL_MS=3600000',
      label: 'analytics · no flush',
      env: { ...proxied, ANALYTICS_ENABLED: 'true', CLICK_FLUSH_INTERVAL_MS: '3600000', ANALYTICS_FLUSH_INTERVAL_MS: '3600000' },
    },
    { variant: 'ANALYTICS_ENABLED=false', label: 'analytics · off', env: { ...proxied, ANALYTICS_ENABLED: 'false' } },
    // The analytics of another checkout, in the same rounds: a change's gain side by side.
    ...(against === undefined
      ? []
      : [
          {
            variant: `ANALYTICS_ENABLED=true, the service of ${against.dir}`,
            label: `analytics · ${basename(against.dir)}`,
            env: { ...proxied, ANALYTICS_ENABLED: 'true' },
            script: against.entry,
          },
        ]),
  ];
}
