// How the startup scenario's targets judge its runs (load/scenarios/startup.ts): the first start,
// or the median of the restarts, against the goal; N/A when the run is missing or skipped. And the
// starts scenario's (load/scenarios/starts.ts): the hot path's spread over fresh starts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spreadOf } from '../../load/percentiles.ts';
import { startsTarget } from '../../load/scenarios/starts.ts';
import { startTarget } from '../../load/scenarios/startup.ts';
import { judged, quietRun } from '../../load/targets.ts';

const started = (label: string, firstMs: number[], restartsMs: number[]) =>
  quietRun('startup', label, { startup: { prepareMs: firstMs.map(() => 5000), firstMs, restartsMs } });
const trusted = () => undefined;

test('first starts and restarts are each judged by their median, so one slow start does not decide', () => {
  const runs = judged(
    [started('startup · embedded', [3400, 2900, 3500], [900, 5000, 1000]), started('startup · postgres', [2100], [1400, 1450, 9000])],
    trusted,
  );
  const first = startTarget('first ≤ 3 s', 'startup · embedded', 'first', 3)(runs);
  assert.deepEqual([first.value, first.verdict], ['3.40 s', 'MISS']);
  const faster = startTarget(
    'first ≤ 3 s',
    'startup · embedded',
    'first',
    3,
  )(judged([started('startup · embedded', [3400, 2900, 2950], [1000])], trusted));
  assert.deepEqual([faster.value, faster.verdict], ['2.95 s', 'PASS']);
  const restart = startTarget('restart ≤ 1.5 s', 'startup · postgres', 'restart', 1.5)(runs);
  assert.deepEqual([restart.value, restart.verdict], ['1.45 s', 'PASS']);
  const slower = startTarget(
    'restart ≤ 1.5 s',
    'startup · postgres',
    'restart',
    1.5,
  )(judged([started('startup · postgres', [1000], [1400, 1600, 1700])], trusted));
  assert.deepEqual([slower.value, slower.verdict], ['1.60 s', 'MISS']);
});

test('a start-up target without its run, or with its run skipped, is N/A and says why', () => {
  const missing = startTarget('t', 'startup · postgres', 'restart', 1.5)(judged([], trusted));
  assert.deepEqual([missing.verdict, missing.detail], ['N/A', 'the run "startup · postgres" did not happen']);
  const skipped = startTarget(
    't',
    'startup · postgres',
    'restart',
    1.5,
  )(judged([quietRun('startup', 'startup · postgres', { skipped: 'needs DATABASE_URL (or --database-cpus)' })], trusted));
  assert.deepEqual([skipped.verdict, skipped.detail], ['N/A', 'needs DATABASE_URL (or --database-cpus)']);
});

test('the starts target compares spreads, (max − min) ÷ median, of the service and the baseline over their fresh starts', () => {
  const each = (label: string, perCpuSecond: number[]) => quietRun('starts', label, { starts: { perCpuSecond } });
  assert.equal(spreadOf([40_000, 50_000, 60_000]), 0.4);
  // One slow start among fast ones: the bimodal service of issue 39.
  const bimodal = startsTarget(
    judged(
      [each('starts · service', [45_000, 28_000, 44_000, 46_000]), each('starts · baseline', [40_000, 41_000, 39_000, 40_500])],
      trusted,
    ),
  );
  assert.deepEqual([bimodal.value, bimodal.verdict], ['41 % against 5 %', 'MISS']);
  const steady = startsTarget(
    judged([each('starts · service', [45_000, 44_000, 46_000]), each('starts · baseline', [40_000, 37_000, 41_000])], trusted),
  );
  assert.deepEqual([steady.value, steady.verdict], ['4 % against 10 %', 'PASS']);
  const short = startsTarget(judged([each('starts · service', [45_000, 44_000]), each('starts · baseline', [40_000, 37_000])], trusted));
  assert.equal(short.verdict, 'N/A');
});
