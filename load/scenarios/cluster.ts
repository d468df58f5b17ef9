// Two workers of the service (WORKERS=2, node:cluster) against one: on two server cores, with the
// load generator on a core of its own, each worker with its own LRU.
//
//   DATABASE_URL=postgres://… taskset -c 0 npm run load -- --server-cpus 1 --scenario hot,cluster

import { inRounds, ONLY_LOCAL, skippedInRounds, type InRounds } from '../scenario.ts';
import { warmUp } from '../seeding.ts';
import { serverAnswering } from '../service.ts';
import { ratio } from '../targets.ts';
import { redirectVariant } from './redirect.ts';

/** Two workers on two cores against one on one: 85 % of linear. */
const CLUSTER_OVER_HOT = 1.7;

export const cluster: InRounds = {
  name: 'cluster',
  needs: ['service', 'processes', 'postgres', 'wrk'],
  answers: ['302'],
  targets: [
    // Two server cores against one: with the load generator on one of them, a figure, not a verdict.
    (runs) => {
      const target = ratio(`cluster ≥ ${CLUSTER_OVER_HOT} × hot`, 'cluster', 'hot', CLUSTER_OVER_HOT)(runs);
      const informational = runs.find('cluster')?.informational;
      return informational === undefined || target.verdict === 'N/A' ? target : { ...target, verdict: 'INFO', detail: informational };
    },
  ],
  async rounds(context) {
    const { service, setup } = context;
    if (!setup.local) return skippedInRounds(context.skip('cluster', 'cluster', ONLY_LOCAL));
    if (!setup.sharedDatabase)
      return skippedInRounds(
        context.skip('cluster', 'cluster', 'needs DATABASE_URL (cluster mode refuses the embedded engine, a single session)'),
      );
    const { cpus: workerCpus, informational } = setup.cluster;
    const prefix = workerCpus === null ? [] : ['taskset', '-c', workerCpus.join(',')];
    const server = await context.processes.launch({ ...service.database?.env, ...service.redis?.env, WORKERS: '2' }, undefined, prefix);
    context.rounds.all.push(server);
    // Each worker has its own LRU: every code twice, on consecutive connections.
    await warmUp(context, server.url, service.codes, 'the cluster', { copies: 2 });
    const variant = `service, WORKERS=2${workerCpus === null ? '' : ` on CPUs ${workerCpus.join(',')}`}`;
    return inRounds({
      ...redirectVariant(context, 'cluster', variant, 'cluster', serverAnswering(server)),
      ...(informational === undefined ? {} : { informational }),
    });
  },
};
