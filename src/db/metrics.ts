// The series of the Postgres tier, registered by the parts that build what they count: the
// breaker's transitions and state (db/plugin.ts), the read replicas' state and lag (resolve/plugin.ts).

import type { Metrics } from '../metrics/metrics.ts';
import type { DbBreaker } from './breaker.ts';
import type { ReplicaSet } from './replicas.ts';

/** Counts the breaker's transitions; what createDbBreaker is told of each. */
export function breakerTransitions(metrics: Metrics): (to: DbBreaker['state']) => void {
  const transitions = metrics.counter(
    'shortener_postgres_breaker_transitions_total',
    'Transitions of the Postgres breaker, by the state it entered.',
    ['to'],
  );
  return (to) => transitions.inc({ to });
}

export function watchBreaker(metrics: Metrics, breaker: Pick<DbBreaker, 'state'>): void {
  metrics.gauge(
    'shortener_postgres_breaker_state',
    'State of the Postgres breaker: 1 for the current state, 0 for the others.',
    (set) => {
      for (const state of ['closed', 'half-open', 'open'] as const) set(state === breaker.state ? 1 : 0, { state });
    },
    ['state'],
  );
}

/** The replicas' series; with none configured they have no values. */
export function watchReplicas(metrics: Metrics, replicas: Pick<ReplicaSet, 'status'> | null): void {
  metrics.gauge(
    'shortener_postgres_replica_up',
    'Whether a read replica takes reads (1) or not (0): at its last probe it had replayed what the ' +
      'primary had at most DATABASE_REPLICA_MAX_LAG_MS before.',
    (set) => {
      for (const { name, state } of replicas?.status() ?? []) set(state === 'up' ? 1 : 0, { replica: name });
    },
    ['replica'],
  );
  metrics.gauge(
    'shortener_postgres_replica_lag_seconds',
    'How old the newest primary position each read replica has replayed is (absent while unknown).',
    (set) => {
      for (const { name, lagMs } of replicas?.status() ?? []) if (lagMs !== null) set(lagMs / 1000, { replica: name });
    },
    ['replica'],
  );
}
