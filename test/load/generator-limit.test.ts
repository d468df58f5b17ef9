// When the load suite calls a figure generator-limited (load/targets.ts): the load generator at
// 90 % of its core, or a rate within 10 % of a ceiling that the generator itself was the limit of.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markGeneratorLimits } from '../../load/scenarios/index.ts';
import { generatorLimit, quietRun } from '../../load/targets.ts';
import type { RunResult } from '../../load/types.ts';

function run(label: string, rps: number, client: number, generator: 'wrk' | 'autocannon' = 'wrk'): RunResult {
  return {
    ...quietRun('hot', label, {}),
    scenario: label === 'ceiling' ? 'ceiling' : 'hot',
    generator,
    requests: rps * 10,
    rps,
    seconds: 10,
    statuses: { '2xx/3xx': rps * 10 },
    cpu: { client, server: 0.99 },
  };
}

test('a generator at 90 % of its core or more is the limit, whatever the ceiling', () => {
  assert.equal(generatorLimit(run('hot', 100_000, 0.95), undefined), 'wrk at 95 % of its core');
  assert.equal(generatorLimit(run('hot', 100_000, 0.85), undefined), undefined);
});

test('a rate within 10 % of a generator-bound ceiling is marked, one well above it is not', () => {
  const ceiling = run('ceiling', 100_000, 0.97);
  assert.equal(generatorLimit(run('hot', 93_000, 0.6), ceiling), '0.93× the ceiling run');
  assert.equal(generatorLimit(run('hot', 80_000, 0.6), ceiling), undefined);
  assert.equal(generatorLimit(run('go', 125_000, 0.6), ceiling), undefined);
  // Measured by another generator, the ceiling says nothing about this run.
  assert.equal(generatorLimit(run('hot', 95_000, 0.6, 'autocannon'), ceiling), undefined);
});

test('a ceiling that its generator did not saturate (a busy machine, a slow ceiling server) marks nothing', () => {
  const ceiling = run('ceiling', 14_000, 0.15);
  assert.deepEqual(
    markGeneratorLimits([ceiling, run('baseline', 13_300, 0.19)]).map((r) => r.generatorLimited),
    [undefined, undefined],
  );
});

test('paced and skipped runs are not judged', () => {
  assert.equal(generatorLimit({ ...run('latency', 50_000, 0.99), offeredRate: 50_000 }, undefined), undefined);
  assert.equal(generatorLimit(quietRun('go', 'go', { skipped: 'go is not installed' }), undefined), undefined);
});
