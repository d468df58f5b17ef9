// Target health probes (health/worker.ts): whether they run, how often, how fast and how patiently.
// Part of SETTINGS (config.ts), in the order of docs/configuration.md's table.

import { Type } from 'typebox';
import { minutesAsMs, type Settings } from './schema.ts';

export const HEALTH_SETTINGS = {
  healthProbes: {
    env: 'HEALTH_PROBES',
    schema: Type.Boolean({ default: false }),
    doc:
      "`true`: each instance probes links' targets on a schedule (HEAD, else GET) and records their health; off by default, so " +
      'that a deployment makes no requests to the targets its users named until its operator asks for them. ' +
      'See [Target health](target-health.md)',
  },
  healthProbeIntervalMs: {
    env: 'HEALTH_PROBE_INTERVAL_MINUTES',
    schema: minutesAsMs(Type.Integer({ minimum: 1, maximum: 30 * 24 * 60, default: 360 })),
    doc: 'how long after a probe that succeeded a link is probed again (a failing link sooner, a broken one less and less often)',
  },
  healthProbeRate: {
    env: 'HEALTH_PROBE_RATE',
    schema: Type.Integer({ minimum: 1, maximum: 1000, default: 5 }),
    doc: 'probes started per second at most, across all instances together (a budget kept in Postgres that every claim draws from)',
  },
  healthProbeTimeoutMs: {
    env: 'HEALTH_PROBE_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000 }),
    doc: 'how long one probe may take, every redirect hop included, before it counts as a `timeout`',
  },
  healthProbeMaxRedirects: {
    env: 'HEALTH_PROBE_MAX_REDIRECTS',
    schema: Type.Integer({ minimum: 0, maximum: 20, default: 5 }),
    doc: 'redirects a probe follows; one more is `too_many_redirects`, and a URL seen twice in the chain `redirect_loop`',
  },
  healthBrokenAfter: {
    env: 'HEALTH_BROKEN_AFTER',
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 3 }),
    doc: 'consecutive failed probes after which a link counts as broken (and `link.target_broken` is sent)',
  },
  healthProbeAllowPrivate: {
    env: 'HEALTH_PROBE_ALLOW_PRIVATE',
    schema: Type.Boolean({ default: false }),
    doc:
      '`true` lets probes connect to loopback, private and other non-public addresses (tests, an intranet deployment). By ' +
      'default a probe connects only to public addresses, checked after each DNS answer and at every redirect hop',
  },
} satisfies Settings;
