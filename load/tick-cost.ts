// What one process.nextTick costs after full GCs, with and without src/process/tick-shape.ts: each
// variant runs in a fresh process (node --expose-gc), ticks a few times, forces two full GCs with
// no tick queued (as the service's start-up does), then times a chain of ticks. Alternating rounds.
//
//   node load/tick-cost.ts [--ticks 200000] [--rounds 3]

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { ticks: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '3' } } });
const keeper = fileURLToPath(new URL('../src/process/tick-shape.ts', import.meta.url));

const probe = `
const gc = globalThis.gc;
const ticks = ${Number(values.ticks)};
let left = 10;
const warm = () => { if (--left > 0) process.nextTick(warm); else setImmediate(collected); };
const collected = () => { gc(); gc(); setImmediate(measure); };
const measure = () => {
  let n = ticks;
  const started = process.hrtime.bigint();
  const step = () => { if (--n > 0) process.nextTick(step); else console.log(Number(process.hrtime.bigint() - started) / ticks); };
  process.nextTick(step);
};
process.nextTick(warm);
`;

function nsPerTick(withKeeper: boolean): number {
  const args = ['--expose-gc', ...(withKeeper ? ['--import', keeper] : []), '--input-type=module', '-e', probe];
  const run = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return Number(run.stdout.trim());
}

for (let round = 1; round <= Number(values.rounds); round++) {
  const without = nsPerTick(false);
  const withKept = nsPerTick(true);
  console.log(`round ${round}: ${without.toFixed(0)} ns per tick without tick-shape.ts, ${withKept.toFixed(0)} ns with it`);
}
