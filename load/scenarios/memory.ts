// Resident memory of a process that has loaded the whole service and holds --memory-links links in
// its LRU (load/memory-probe.ts, a process of its own run with the service's Node flags).
//
//   npm run load -- --scenario memory

import { spawn } from 'node:child_process';
import { loadScript, SERVICE_NODE_FLAGS } from '../processes.ts';
import { LoadError, type OnItsOwn } from '../scenario.ts';
import { notApplicable, quietRun } from '../targets.ts';
import type { RunResult } from '../types.ts';

// Issue 39: a million cached links in 250 MB, the process's own start-up footprint included.
const MEMORY_GOAL_MB = 250;

export const memory: OnItsOwn = {
  name: 'memory',
  needs: [],
  targets: [
    (runs) => {
      const name = `memory: 1M cached links ≤ ${MEMORY_GOAL_MB} MB RSS`;
      const figures = runs.find('memory')?.memory;
      if (figures === undefined) return notApplicable(name, 'the memory run did not happen');
      return {
        name,
        value: `${figures.rssMb} MB for ${figures.links.toLocaleString('en-US')} links (${figures.bytesPerLink} B/link)`,
        // Judged only at the full million: a smaller probe (smoke runs) says nothing about the goal.
        verdict: figures.links < 1_000_000 ? 'N/A' : figures.rssMb <= MEMORY_GOAL_MB ? 'PASS' : 'MISS',
      };
    },
  ],
  async run(context) {
    const args = ['--expose-gc', ...SERVICE_NODE_FLAGS, loadScript('memory-probe.ts'), '--links', String(context.options.memoryLinks)];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new LoadError(`memory probe exited with ${code}`);
    const probed = JSON.parse(out) as Required<RunResult>['memory'];
    context.log(
      `memory: ${probed.rssMb} MB resident with ${probed.links.toLocaleString('en-US')} links in the LRU ` +
        `(${probed.rssBeforeMb} MB before the first)`,
    );
    const { links, rssMb, rssBeforeMb, heapUsedMb, bytesPerLink } = probed;
    return [quietRun('memory', 'memory', { memory: { links, rssMb, rssBeforeMb, heapUsedMb, bytesPerLink } })];
  },
};
