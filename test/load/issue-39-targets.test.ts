// The absolute goals of issue 39 that the load suite judges besides its ratios: creates a second at
// 400 connections (load/scenarios/create.ts) and a link's bytes in Postgres (load/scenarios/storage.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judgeTargets } from '../../load/scenarios/index.ts';
import { quietRun } from '../../load/targets.ts';
import type { RunResult, StorageFigures } from '../../load/types.ts';

function creates(rps: number, statuses: Record<string, number> = { 201: rps * 10 }): RunResult {
  return {
    ...quietRun('create', 'create 400', {}),
    generator: 'autocannon',
    connections: 400,
    requests: Object.values(statuses).reduce((a, b) => a + b, 0),
    rps,
    seconds: 10,
    latency: { mean: 40, p50: 30, p90: 60, p99: 90, p999: 120, max: 150 },
    statuses,
    cpu: { client: 0.2, server: 0.57 },
  };
}

const judged = (run: RunResult, prefix: string) => judgeTargets([run]).find((t) => t.name.startsWith(prefix));

test('creates pass at 10,000 acknowledged a second at 400 connections, miss below, and are not judged on a run with errors', () => {
  assert.equal(judged(creates(10_000), 'create 400 ≥ 10,000')?.verdict, 'PASS');
  const missed = judged(creates(5012), 'create 400 ≥ 10,000');
  assert.equal(missed?.verdict, 'MISS');
  assert.equal(missed.value, '5,012/s');
  assert.match(missed.detail ?? '', /the service at 57 % of its core/);
  assert.equal(judged(creates(12_000, { 201: 100, 503: 3 }), 'create 400 ≥ 10,000')?.verdict, 'N/A');
  assert.equal(judgeTargets([]).find((t) => t.name.startsWith('create 400 ≥ 10,000'))?.verdict, 'N/A');
});

function stored(bytesPerLink: number): RunResult {
  const postgres = {
    bytesPerLink,
    heapBytesPerLink: 206,
    indexBytesPerLink: bytesPerLink - 206,
    indexBytesPerLinkByName: { links_pkey: 42, links_list_search: 440 },
    allBytesPerLink: bytesPerLink + 163,
  } as unknown as StorageFigures['postgres'];
  return quietRun('storage', 'storage', { storage: { postgres, redis: null } as unknown as StorageFigures });
}

test("storage passes at 400 B a link in Postgres, indexes included, misses above, and names the search index's share", () => {
  assert.equal(judged(stored(400), 'storage: a link')?.verdict, 'PASS');
  const missed = judged(stored(927), 'storage: a link');
  assert.equal(missed?.verdict, 'MISS');
  assert.equal(missed.value, '927 B/link');
  assert.equal(missed.detail, "heap 206, indexes 721 (the search's 440); with link_totals 1090");
  assert.equal(judgeTargets([]).find((t) => t.name.startsWith('storage: a link'))?.verdict, 'N/A');
});
