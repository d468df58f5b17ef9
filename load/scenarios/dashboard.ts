// The dashboard is Fastify routes under /app/ (src/dashboard/routes.ts): the redirect path must not
// know whether it is there. The hot path with and without it, in the same rounds; plain GETs, so
// wrk drives them when it is installed.
//
//   npm run load -- --scenario dashboard

import type { OnItsOwn } from '../scenario.ts';
import { hotSideBySide } from '../side-by-side.ts';
import { bothRuns, serverCpuPerRequest } from '../targets.ts';

/**
 * The dashboard's goal for the hot path: at least 0.97× without it. Shown, not judged: runs of
 * one variant differ by ±5 % on these two shared cores (the metrics runs in the README; the
 * dashboard's own gave 1.24×, 1.11× and, one after the other on the embedded engine, 0.65×).
 */
const DASHBOARD_ON_OVER_OFF = 0.97;

export const dashboard: OnItsOwn = {
  name: 'dashboard',
  needs: ['links', 'processes', 'wrk'],
  answers: ['302'],
  targets: [
    // The hot path with the dashboard against without it, in the same rounds: a ratio with its goal, shown.
    (runs) => {
      const name = 'hot with the dashboard ÷ without';
      const both = bothRuns(runs, name, 'dashboard', 'dashboard · off');
      if (!Array.isArray(both)) return both;
      const [on, off] = both;
      const cpu = serverCpuPerRequest(runs, on, off);
      const limited = [on, off].filter((r) => r.generatorLimited !== undefined).map((r) => `"${r.label}"`);
      return {
        name,
        value: `${(on.rps / off.rps).toFixed(2)}×`,
        verdict: 'INFO',
        detail:
          `goal ≥ ${DASHBOARD_ON_OVER_OFF}×, shown and not judged: 3 % is below what two shared cores resolve` +
          (cpu === undefined ? '' : `; ${cpu}`) +
          (limited.length === 0 ? '' : `; generator-limited: ${limited.join(' and ')}`),
      };
    },
  ],
  async run(context) {
    return hotSideBySide(
      context,
      'dashboard',
      [
        { variant: 'DASHBOARD_ENABLED=true', label: 'dashboard', env: { DASHBOARD_ENABLED: 'true' } },
        { variant: 'DASHBOARD_ENABLED=false', label: 'dashboard · off', env: { DASHBOARD_ENABLED: 'false' } },
      ],
      context.service.hotPaths,
      'DASHBOARD_ENABLED',
    );
  },
};
