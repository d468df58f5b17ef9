// How the startup scenario's targets judge its runs (load/scenarios/startup.ts): the first start,
// or the median of the restarts, against the goal; N/A when the run is missing or skipped.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTarget } from '../../load/scenarios/startup.ts';
import { judged, quietRun } from '../../load/targets.ts';

const started = (label: string, firstMs: number, restartsMs: number[]) => quietRun('startup', label, { startup: { firstMs, restartsMs } });
const trusted = () => undefined;

test('the first start is judged on its own; the restarts by their median, so one slow restart does not decide', () => {
  const runs = judged(
    [started('startup · embedded', 3400, [900, 5000, 1000]), started('startup · postgres', 2100, [1400, 1450, 9000])],
    trusted,
  );
  const first = startTarget('first ≤ 3 s', 'startup · embedded', 'first', 3)(runs);
  assert.deepEqual([first.value, first.verdict], ['3.40 s', 'MISS']);
  const restart = startTarget('restart ≤ 1.5 s', 'startup · postgres', 'restart', 1.5)(runs);
  assert.deepEqual([restart.value, restart.verdict], ['1.45 s', 'PASS']);
  const slower = startTarget(
    'restart ≤ 1.5 s',
    'startup · postgres',
    'restart',
    1.5,
  )(judged([started('startup · postgres', 1000, [1400, 1600, 1700])], trusted));
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
