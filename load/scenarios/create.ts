// Creates through POST /links, group-committed, against a server of one INSERT per request
// (load/naive-create-server.ts), at 100 and at 400 connections in the same rounds.
//
//   npm run load -- --scenario create

import { join } from 'node:path';
import { compare, type Variant } from '../measure.ts';
import { ONLY_LOCAL, type OnItsOwn } from '../scenario.ts';
import { mainAnswering, serverAnswering } from '../service.ts';
import { notApplicable, ratio } from '../targets.ts';
import { fixed, post, targetUrl } from '../traffic.ts';
import type { RunResult } from '../types.ts';

// Issue 39: creates acknowledged (committed) a second at 400 connections.
const CREATES_GOAL = 10_000;

export const create: OnItsOwn = {
  name: 'create',
  needs: ['service', 'processes'],
  answers: ['201'],
  targets: [
    ratio('create 400 ≥ 3 × one INSERT per request', 'create 400', 'create 400 · one INSERT per request', 3),
    // Inverted so that "≥ 3" reads the same way: the naive p99 over ours.
    ratio('create 400 p99 ≤ ⅓ of one INSERT per request', 'create 400 · one INSERT per request', 'create 400', 3, (r) => r.latency.p99),
    (runs) => {
      const name = `create 400 ≥ ${CREATES_GOAL.toLocaleString('en-US')} acknowledged a second`;
      const run = runs.find('create 400');
      if (run === undefined) return notApplicable(name, 'the run "create 400" did not happen');
      const problem = runs.invalid(run);
      if (problem !== undefined) return notApplicable(name, problem);
      const server = run.cpu.server === null ? '' : `, the service at ${Math.round(run.cpu.server * 100)} % of its core`;
      return {
        name,
        value: `${Math.round(run.rps).toLocaleString('en-US')}/s`,
        verdict: run.rps >= CREATES_GOAL ? 'PASS' : 'MISS',
        detail: `${run.seconds} s${server}`,
      };
    },
  ],
  async run(context) {
    const { service, options, processes } = context;
    const runs: RunResult[] = [];
    const creates = fixed(Array.from({ length: 1000 }, (_, i) => post('/links', { url: targetUrl(2 * options.links + i) })));
    // Its own embedded folder: PGlite lets one process at a time open a data directory.
    const naiveEnv =
      service.database?.env.DATABASE_URL === undefined
        ? { EMBEDDED_DATA_DIR: join(processes.scratch, 'naive-pglite') }
        : service.database.env;
    const naive = context.setup.local ? await processes.launch(naiveEnv, 'naive-create-server.ts') : null;
    if (naive === null) runs.push(context.skip('create', 'create · one INSERT per request', ONLY_LOCAL));
    for (const n of [100, 400]) {
      const pair: Variant[] = [
        { scenario: 'create', variant: 'service', label: `create ${n}`, ...mainAnswering(service), connections: n, requests: creates },
      ];
      if (naive !== null) {
        pair.push({
          scenario: 'create',
          variant: 'one INSERT per request',
          label: `create ${n} · one INSERT per request`,
          ...serverAnswering(naive),
          connections: n,
          requests: creates,
        });
      }
      runs.push(...(await compare(pair, options.seconds, options.rounds)).map(context.record));
    }
    if (naive !== null) await processes.stop(naive);
    return runs;
  },
};
