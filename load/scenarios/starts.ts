// Whether the hot path is as fast in every process start: the service and the bare node:http
// baseline, each started afresh --starts times (alternating, in reverse order every other time),
// each start warmed on every link and then measured for --seconds ÷ --starts on the hot traffic,
// in requests per second of server CPU. A process whose V8 state turned slow at start-up (the
// megamorphic ticks of docs/performance.md#why-processnexttick-was-dear-in-the-service) shows here
// as one start far below the others; the machine's own noise moves the baseline alike. Issue 39's
// bar: the service's spread (max − min over the median) no wider than the baseline's.
//
//   DATABASE_URL=postgres://… taskset -c 0 npm run load -- --server-cpus 1 --scenario starts --starts 10 --seconds 50

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { measure } from '../measure.ts';
import { ONLY_LOCAL, type OnItsOwn } from '../scenario.ts';
import { warmUp } from '../seeding.ts';
import { serverAnswering, startBeside } from '../service.ts';
import { notApplicable, perCpuSecond, quietRun, untrusted, type Target } from '../targets.ts';
import type { StartsFigures } from '../types.ts';
import { spreadOf } from '../percentiles.ts';
import { redirectVariant } from './redirect.ts';

const SERVICE = 'starts · service';
const BASELINE = 'starts · baseline';

/** The service's spread over its starts no wider than the baseline's. */
export const startsTarget: Target = (runs) => {
  const name = 'starts: the service’s spread over fresh starts ≤ the baseline’s (per server CPU-second)';
  const service = runs.find(SERVICE)?.starts;
  const baseline = runs.find(BASELINE)?.starts;
  if (service === undefined || baseline === undefined) return notApplicable(name, `needs the runs "${SERVICE}" and "${BASELINE}"`);
  if (service.perCpuSecond.length < 3) return notApplicable(name, 'fewer than three starts: no spread to speak of');
  const [mine, theirs] = [spreadOf(service.perCpuSecond), spreadOf(baseline.perCpuSecond)];
  return {
    name,
    value: `${(mine * 100).toFixed(0)} % against ${(theirs * 100).toFixed(0)} %`,
    verdict: mine <= theirs ? 'PASS' : 'MISS',
  };
};

export const starts: OnItsOwn = {
  name: 'starts',
  needs: ['links', 'processes', 'wrk'],
  answers: ['302'],
  targets: [startsTarget],
  minutes: (options) => (options.starts * 2 * 10) / 60,
  async run(context) {
    if (!context.setup.local) return [context.skip('starts', SERVICE, ONLY_LOCAL)];
    const { processes, service, options } = context;
    const file = join(processes.scratch, 'starts-links.json');
    await writeFile(file, JSON.stringify(service.links));
    const seconds = Math.max(1, options.seconds / options.starts);
    const figures = new Map<string, number[]>([
      [SERVICE, []],
      [BASELINE, []],
    ]);
    for (let i = 0; i < options.starts; i++) {
      const order = i % 2 === 0 ? [SERVICE, BASELINE] : [BASELINE, SERVICE];
      for (const label of order) {
        const server =
          label === SERVICE ? await startBeside(context, {}) : await processes.launch({ LINKS_FILE: file }, 'baseline-server.ts');
        try {
          if (label === SERVICE) await warmUp(context, server.url, service.codes, label);
          const run = await measure(redirectVariant(context, 'starts', label, label, serverAnswering(server)), seconds);
          const problem = untrusted(run, starts.answers);
          if (problem !== undefined) return [context.skip('starts', label, `start ${i + 1}: ${problem}`)];
          figures.get(label)?.push(perCpuSecond(run));
        } finally {
          await processes.stop(server);
        }
      }
    }
    return [...figures].map(([label, perCpu]) => {
      const each: StartsFigures = { perCpuSecond: perCpu.map(Math.round) };
      context.log(`${label}: ${each.perCpuSecond.map((n) => n.toLocaleString('en-US')).join(', ')} per server CPU-second`);
      return quietRun('starts', label, { starts: each });
    });
  },
};
