// The rules of target health (core/target-health.ts): what an answer means, when failures make a
// link broken and when it recovers, and when it is probed next.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BROKEN_MAX_MS,
  CONFIRM_MS,
  headRefused,
  nextHealth,
  nextProbeDelayMs,
  probeHost,
  resultOk,
  resultText,
  statusOk,
} from '../../src/core/target-health.ts';

test('2xx and 3xx answers are ok, and so are the guarded 401, 403, 407, 429, 451; 404, 410 and 5xx are failures', () => {
  for (const status of [200, 204, 301, 304, 401, 403, 407, 429, 451]) assert.equal(statusOk(status), true, String(status));
  for (const status of [400, 404, 410, 500, 502, 503, 504, 100]) assert.equal(statusOk(status), false, String(status));
  assert.equal(resultOk({ status: 200 }), true);
  assert.equal(resultOk({ failure: 'timeout' }), false);
  assert.equal(resultText({ status: 404 }), '404');
  assert.equal(resultText({ failure: 'redirect_loop' }), 'redirect_loop');
});

test('a HEAD answered 405 or 501 is asked again with GET; other answers are the answer', () => {
  assert.equal(headRefused(405), true);
  assert.equal(headRefused(501), true);
  for (const status of [200, 404, 403, 500]) assert.equal(headRefused(status), false);
});

test('failures count up, make the link broken at the threshold with one event, and one success recovers it', () => {
  let state = { failures: 0, broken: false };
  const events: (string | null)[] = [];
  for (const ok of [false, false, false, false, true, true]) {
    const step = nextHealth(state, ok, 3);
    events.push(step.event);
    state = { failures: step.failures, broken: step.broken };
  }
  assert.deepEqual(events, [null, null, 'link.target_broken', null, 'link.target_recovered', null]);
  assert.deepEqual(state, { failures: 0, broken: false });
  assert.deepEqual(nextHealth({ failures: 2, broken: false }, true, 3), { failures: 0, broken: false, event: null });
  assert.equal(nextHealth({ failures: 0, broken: false }, false, 1).event, 'link.target_broken');
});

test('a well link waits the interval, a failing one is confirmed sooner, a broken one backs off up to a week', () => {
  const hour = 3_600_000;
  assert.equal(nextProbeDelayMs({ failures: 0, broken: false }, 6 * hour, 3, 0.5), 6 * hour);
  assert.equal(nextProbeDelayMs({ failures: 1, broken: false }, 6 * hour, 3, 0.5), CONFIRM_MS);
  assert.equal(nextProbeDelayMs({ failures: 1, broken: false }, 4 * 60_000, 3, 0.5), 60_000);
  assert.equal(nextProbeDelayMs({ failures: 3, broken: true }, 6 * hour, 3, 0.5), 6 * hour);
  assert.equal(nextProbeDelayMs({ failures: 5, broken: true }, 6 * hour, 3, 0.5), 24 * hour);
  assert.equal(nextProbeDelayMs({ failures: 500, broken: true }, 6 * hour, 3, 0.5), BROKEN_MAX_MS);
  // Jitter: 10 % either way, never below a second.
  assert.equal(nextProbeDelayMs({ failures: 0, broken: false }, 6 * hour, 3, 0), 0.9 * 6 * hour);
  assert.equal(nextProbeDelayMs({ failures: 0, broken: false }, 6 * hour, 3, 0.999_999), Math.round(6 * hour * 1.099_999_8));
  assert.equal(nextProbeDelayMs({ failures: 1, broken: false }, 1000, 3, 0), 1000);
});

test('the host a probe counts against is the URL host in lower case; a URL that is not http(s) has none', () => {
  assert.equal(probeHost('https://Example.COM:8443/a?b'), 'example.com');
  assert.equal(probeHost('http://[::1]:80/'), '[::1]');
  assert.equal(probeHost('ftp://example.com/'), undefined);
  assert.equal(probeHost('not a url'), undefined);
});
