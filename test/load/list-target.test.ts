// How the load suite judges the link list (load/scenarios/list.ts): on the p99 over every shape, and a
// request that failed (a 503 of a statement timeout, or of the breaker it opened) is a miss, not a
// reason to set the run aside.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judgeTargets } from '../../load/scenarios/index.ts';
import { quietRun } from '../../load/targets.ts';
import type { ListFigures, RunResult } from '../../load/types.ts';

const figures: ListFigures = {
  links: 1_000_000,
  requestsPerShape: 300,
  connections: 4,
  worst: { label: 'list · q, no match', p99: 61 },
  seeding: {
    linksSeconds: 50,
    linksPerSecond: 20_000,
    totalsSeconds: 19,
    indexes: [],
    indexSeconds: 54,
    vacuumSeconds: 2,
    linksBytes: 0,
    totalsBytes: 0,
    postgres: {},
  },
  export: null,
};

function list(p99: number, statuses: Record<string, number>): RunResult {
  const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
  return {
    ...quietRun('list', 'list', {}),
    generator: 'autocannon',
    requests,
    rps: 100,
    seconds: requests / 100,
    latency: { mean: 10, p50: 8, p90: 20, p95: 30, p99, p999: p99, max: p99 },
    statuses,
    list: figures,
  };
}

const listTarget = (run: RunResult) => judgeTargets([run]).find((t) => t.name.startsWith('list p99'));

test('the list passes on a p99 within 50 ms, and says how many links and which shape was worst', () => {
  const target = listTarget(list(42, { 200: 6600 }));
  assert.equal(target?.verdict, 'PASS');
  assert.equal(target.name, 'list p99 ≤ 50 ms with 1,000,000 links');
  assert.match(target.detail ?? '', /worst shape: "list · q, no match" p99 61 ms/);
});

test('a list request that failed is a miss, even when the p99 of the others is within the goal', () => {
  assert.equal(listTarget(list(51, { 200: 6600 }))?.verdict, 'MISS');
  const failed = listTarget(list(12, { 200: 6500, 503: 100 }));
  assert.equal(failed?.verdict, 'MISS');
  assert.match(failed.detail ?? '', /100 requests failed \(unexpected statuses 503×100\)/);
});

test('a skipped list is not judged', () => {
  const target = listTarget(quietRun('list', 'list', { skipped: 'needs DATABASE_URL' }));
  assert.deepEqual([target?.verdict, target?.detail], ['N/A', 'needs DATABASE_URL']);
});
