// The load suite's per-core figure (load/targets.ts): requests per second of server CPU, the fair
// comparison when one wrk core cannot saturate a fast server; targets judged on it, and a server
// under 90 % of its core said to be unsaturated.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderTable } from '../../load/report/text.ts';
import { judged, perCoreRatio, quietRun, unsaturated } from '../../load/targets.ts';
import type { RunResult, SuiteResult } from '../../load/types.ts';

function run(label: string, rps: number, server: number | null): RunResult {
  return {
    ...quietRun('hot', label, {}),
    generator: 'wrk',
    requests: rps * 10,
    rps,
    seconds: 10,
    statuses: { '2xx/3xx': rps * 10 },
    cpu: { client: 0.7, server },
  };
}

const trusted = () => undefined;

test('a per-core target divides each rate by its server CPU: a slower server that was not saturated does not pass on rates', () => {
  // By rates 100,000 ÷ 110,000 = 0.91; per CPU-second 101,010 ÷ 157,143 = 0.64.
  const runs = judged([run('hot', 100_000, 0.99), run('go', 110_000, 0.7)], trusted);
  const target = perCoreRatio('hot ≥ 0.85 × go, per server CPU-second', 'hot', 'go', 0.85)(runs);
  assert.equal(target.value, '0.64×');
  assert.equal(target.verdict, 'MISS');
  assert.equal(target.detail, 'not saturated, "go": server at 70 % of its core');
});

test('a per-core target passes on per-core figures even where the rates alone would miss', () => {
  // By rates 60,000 ÷ 100,000 = 0.60; per CPU-second 100,000 ÷ 101,010 = 0.99.
  const runs = judged([run('hot', 60_000, 0.6), run('go', 100_000, 0.99)], trusted);
  const target = perCoreRatio('hot ≥ 0.85 × go, per server CPU-second', 'hot', 'go', 0.85)(runs);
  assert.deepEqual([target.value, target.verdict], ['0.99×', 'PASS']);
  assert.match(target.detail ?? '', /"hot": server at 60 % of its core/);
});

test('without a reading of a server CPU, or without the run, a per-core target is N/A, saying why', () => {
  const unread = perCoreRatio('t', 'hot', 'go', 0.85)(judged([run('hot', 60_000, 0.95), run('go', 100_000, null)], trusted));
  assert.deepEqual([unread.verdict, unread.detail], ['N/A', `no reading of the server's CPU for "go"`]);
  const missing = perCoreRatio('t', 'hot', 'go', 0.85)(judged([run('hot', 60_000, 0.95)], trusted));
  assert.equal(missing.verdict, 'N/A');
});

test('paced, skipped and unread runs are never called unsaturated; a saturated server is not either', () => {
  assert.equal(unsaturated(run('hot', 50_000, 0.95)), undefined);
  assert.equal(unsaturated(run('hot', 50_000, 0.5)), 'server at 50 % of its core');
  assert.equal(unsaturated({ ...run('latency', 20_000, 0.4), offeredRate: 20_000 }), undefined);
  assert.equal(unsaturated(run('hot', 50_000, null)), undefined);
  assert.equal(unsaturated(quietRun('go', 'go', { skipped: 'go is not installed' })), undefined);
});

test('the terminal table gives each run its requests per server CPU-second, and says when its server was not saturated', () => {
  const result = {
    settings: { generator: 'wrk', cpus: 'generator on CPU 0 · servers on CPU 1' },
    runs: [run('hot', 72_000, 0.9), run('baseline', 30_000, 0.6)],
    targets: [],
  } as unknown as SuiteResult;
  const lines = renderTable(result).split('\n');
  assert.match(lines.find((line) => line.includes('req/s')) ?? '', /req\/s\s+per CPU-s/);
  assert.match(lines.find((line) => line.startsWith('hot')) ?? '', /72,000\s+80,000\s/);
  const baseline = lines.find((line) => line.startsWith('baseline')) ?? '';
  assert.match(baseline, /30,000\s+50,000\s/);
  assert.match(baseline, /not saturated \(server at 60 % of its core\)/);
});
