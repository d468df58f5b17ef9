import assert from 'node:assert/strict';
import { test } from 'node:test';
import { msToNextUtcDay, statsRange, utcDay } from '../../src/core/day-range.ts';

const NOON = Date.parse('2026-03-15T12:00:00Z');

test('utcDay and the next UTC midnight', () => {
  assert.equal(utcDay(Date.parse('2026-03-15T23:59:59.999Z')), '2026-03-15');
  assert.equal(utcDay(Date.parse('2026-03-16T00:00:00Z')), '2026-03-16');
  assert.equal(msToNextUtcDay(NOON), 12 * 3600_000);
  assert.equal(msToNextUtcDay(Date.parse('2026-03-16T00:00:00Z')), 24 * 3600_000);
});

test('statsRange: defaults, bounds, and what it refuses', () => {
  assert.deepEqual(statsRange(undefined, undefined, NOON), { from: '2026-02-14', to: '2026-03-15' });
  assert.deepEqual(statsRange(undefined, '2026-01-10', NOON), { from: '2025-12-12', to: '2026-01-10' });
  assert.deepEqual(statsRange('2026-03-01', '2026-03-01', NOON), { from: '2026-03-01', to: '2026-03-01' });
  assert.deepEqual(statsRange('2024-01-01', '2024-12-31', NOON), { from: '2024-01-01', to: '2024-12-31' }, '366 days of a leap year');
  assert.equal(statsRange('2024-01-01', '2025-01-01', NOON), undefined, '367 days');
  assert.equal(statsRange('2026-03-02', '2026-03-01', NOON), undefined, 'from after to');
  // Postgres has no year 0: a day it cannot store is refused here, never sent to it.
  assert.deepEqual(statsRange('0001-01-01', '0001-01-30', NOON), { from: '0001-01-01', to: '0001-01-30' });
  assert.equal(statsRange('0000-12-31', '0001-01-05', NOON), undefined, 'from in year 0');
  assert.equal(statsRange(undefined, '0001-01-05', NOON), undefined, 'the default from falls in year 0');
  assert.equal(statsRange('0000-01-01', '0000-01-02', NOON), undefined, 'year 0');
  assert.deepEqual(statsRange('9999-12-01', '9999-12-31', NOON), { from: '9999-12-01', to: '9999-12-31' });
  for (const bad of ['2026-02-30', '2026-3-01', '20260301', 'yesterday', '2026-03-01T00:00:00Z', '']) {
    assert.equal(statsRange(bad, '2026-03-15', NOON), undefined, bad);
    assert.equal(statsRange(undefined, bad, NOON), undefined, bad);
  }
});
