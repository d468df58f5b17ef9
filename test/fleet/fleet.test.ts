// The fleet test, short: HAProxy on the shipped configuration in front of three instances, a Redis
// Cluster of three masters with a replica each, a Postgres primary and its streaming standby, all
// as processes on this machine, under a mix of redirects, creates, bulk creates, changes, disables
// and stats reads, with each fault of `npm run fleet` injected once while the traffic runs. Every
// check must hold: nothing acknowledged lost, no redirect staler than the README's bound, no 5xx
// but the documented ones, clicks and webhook events adding up. The timeline is written to
// test-results/fleet/ as the report `npm run fleet` writes.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { renderFleetReport, renderTimelineText } from '../../load/fleet/report.ts';
import { runFleet } from '../../load/fleet/run.ts';

test(
  'the fleet under traffic and six faults one after another: nothing acknowledged lost, nothing staler than the bound, no undocumented 5xx',
  { timeout: 600_000 },
  async (t) => {
    const result = await runFleet({
      seconds: 0,
      rate: 100,
      connections: 8,
      seedLinks: 500,
      warmupSeconds: 2,
      gapSeconds: 2,
      tailSeconds: 3,
      holdMs: 4000,
      command: 'npm test (test/fleet/fleet.test.ts)',
      log: (line) => t.diagnostic(line),
    });
    mkdirSync('test-results/fleet', { recursive: true });
    writeFileSync('test-results/fleet/fleet.html', renderFleetReport(result));
    const text = renderTimelineText(result);
    writeFileSync('test-results/fleet/fleet.txt', text);
    t.diagnostic(`${result.requests} requests, ${result.acknowledgedWrites} acknowledged writes over ${result.seconds} s`);
    for (const fault of result.errorsByFault) {
      t.diagnostic(
        `${fault.label}: ${fault.requests} requests, ${fault.errors} errors (${(fault.errorRate * 100).toFixed(2)} %), p99 ${fault.p99Ms.toFixed(0)} ms`,
      );
    }
    for (const check of result.checks) t.diagnostic(`${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`);

    assert.deepEqual(
      result.faults.map((fault) => fault.name),
      ['kill-instance', 'term-instance', 'redis-failover', 'standby-pause', 'primary-restart', 'redis-partition'],
      'every fault was injected',
    );
    const written = result.acknowledgedWrites - result.seededLinks;
    assert.ok(written > 200, `writes went on through the faults: ${written} acknowledged after the seed`);
    for (const fault of result.errorsByFault) assert.ok(fault.requests > 0, `traffic during "${fault.label}"`);
    const failed = result.checks.filter((check) => !check.ok);
    assert.deepEqual(
      failed.map((check) => `${check.name}: ${check.detail}\n  ${check.examples.join('\n  ')}`),
      [],
      `every check holds (timeline in test-results/fleet/fleet.txt)\n${text}`,
    );
  },
);
