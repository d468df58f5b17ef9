// How the load suite's runner plans a run (load/plan.ts) from the scenarios of load/scenarios/: what
// --scenario brings in, which scenarios are measured together, and when the main service goes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { choose, neededFrom, serviceSettings, stepsOf } from '../../load/plan.ts';
import { judgeTargets, SCENARIOS } from '../../load/scenarios/index.ts';

const shared = { sharedDatabase: true };
const embedded = { sharedDatabase: false };
const names = (list: readonly { name: string }[]) => list.map((s) => s.name);

test('each scenario has a name of its own, and every target is judged even when no scenario ran', () => {
  assert.equal(new Set(names(SCENARIOS)).size, SCENARIOS.length);
  const targets = judgeTargets([]);
  assert.equal(targets.length, 28);
  assert.ok(targets.every((target) => target.verdict === 'N/A'));
});

test('latency brings in hot and hot-slow, and runs after them', () => {
  assert.deepEqual(names(choose(SCENARIOS, ['latency'], shared)), ['hot', 'hot-slow', 'latency']);
  assert.deepEqual(names(choose(SCENARIOS, ['memory', 'list'], shared)), ['list', 'memory']);
});

test('consecutive scenarios of the redirect rounds are measured in one step, the others one step each', () => {
  const steps = stepsOf(choose(SCENARIOS, ['not-found', 'ceiling', 'hot', 'mixed', 'baseline'], shared), shared);
  assert.deepEqual(
    steps.map((step) => names(step.scenarios)),
    [['ceiling', 'baseline', 'hot', 'not-found'], ['mixed']],
  );
  assert.deepEqual(
    steps.map((step) => step.inRounds),
    [true, false],
  );
});

test('the main service stays up while a scenario left needs it, and the rounds’ servers until latency has run', () => {
  const steps = stepsOf(choose(SCENARIOS, ['latency', 'create', 'postgres', 'memory'], shared), shared);
  assert.deepEqual(
    steps.map((step) => names(step.scenarios).join(',')),
    ['hot,hot-slow', 'latency', 'create', 'postgres', 'memory'],
  );
  assert.deepEqual(
    steps.map((_, i) => neededFrom(steps, i, 'rounds')),
    [true, true, false, false, false],
  );
  assert.deepEqual(
    steps.map((_, i) => neededFrom(steps, i, 'service')),
    [true, true, true, false, false],
  );
});

test('on the embedded engine, which one process opens at a time, redis runs once the main service has stopped', () => {
  const [beside] = stepsOf(choose(SCENARIOS, ['redis'], shared), shared);
  const [after] = stepsOf(choose(SCENARIOS, ['redis'], embedded), embedded);
  assert.deepEqual([beside?.needs.has('service'), beside?.needs.has('links')], [true, false]);
  assert.deepEqual([after?.needs.has('service'), after?.needs.has('links')], [false, true]);
});

test('the main service is started with what the chosen scenarios need of it', () => {
  assert.deepEqual(serviceSettings(choose(SCENARIOS, ['hot'], shared)), {});
  assert.deepEqual(serviceSettings(choose(SCENARIOS, ['hot', 'rules'], shared)), { TRUST_PROXY: 'loopback' });
});
