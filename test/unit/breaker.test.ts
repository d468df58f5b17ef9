// The Postgres breaker's rules with fake batches: what opens it, what never counts against it,
// what each failure is answered with, and how it closes again.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDbBreaker, type DbBreaker } from '../../src/db/breaker.ts';
import { AppError } from '../../src/errors.ts';
import { memoryLogger } from '../helpers/logs.ts';

function breakerFor(t: { after(fn: () => void): void }, options = { breakerTimeoutMs: 100, breakerResetMs: 100 }) {
  const transitions: DbBreaker['state'][] = [];
  const breaker = createDbBreaker(options, memoryLogger('fatal').log, (to) => transitions.push(to));
  t.after(() => breaker.shutdown());
  return { breaker, transitions };
}

/** A server-side error as pg reports it: its SQLSTATE in `code`. */
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'ERROR' });
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

const ok = async () => 'ok';
const failing = (err: unknown) => () => Promise.reject(err);
const codeOf = (err: unknown) => (err as AppError).code;

test('five failed batches in a row open it, even with a window full of successes', async (t) => {
  const { breaker, transitions } = breakerFor(t);
  for (let i = 0; i < 20; i++) await breaker.run(ok);
  for (let i = 0; i < 4; i++) await assert.rejects(breaker.run(failing(refused())));
  assert.equal(breaker.state, 'closed', '4 of 24 failed: below both rules');
  await assert.rejects(breaker.run(failing(refused())));
  assert.equal(breaker.state, 'open');
  assert.deepEqual(transitions, ['open']);
  assert.equal(breaker.failures, 5);
});

test('more than half the batches of the window failing opens it, once there are three', async (t) => {
  const { breaker } = breakerFor(t);
  await breaker.run(ok);
  await assert.rejects(breaker.run(failing(refused())));
  await breaker.run(ok);
  await assert.rejects(breaker.run(failing(refused())));
  assert.equal(breaker.state, 'closed', '2 of 4 failed: half is not more than half');
  await assert.rejects(breaker.run(failing(refused())));
  assert.equal(breaker.state, 'open', '3 of 5 failed, never more than 2 in a row');
});

test('values Postgres refuses never count: any number of them leaves it closed, each answered as the client error it is', async (t) => {
  const { breaker, transitions } = breakerFor(t);
  const clientErrors = [
    [pgError('22008', 'date/time field value out of range: "0000-01-01"'), 'BAD_REQUEST', 400],
    [pgError('22003', 'bigint out of range'), 'BAD_REQUEST', 400],
    [pgError('22P02', 'invalid input syntax for type integer: "x"'), 'BAD_REQUEST', 400],
    [pgError('22021', 'invalid byte sequence for encoding "UTF8": 0x00'), 'BAD_REQUEST', 400],
    [pgError('23514', 'new row violates check constraint'), 'BAD_REQUEST', 400],
    [pgError('23505', 'duplicate key value violates unique constraint'), 'CONFLICT', 409],
    [new AppError('STATS_RANGE_INVALID'), 'STATS_RANGE_INVALID', 400],
  ] as const;
  for (let round = 0; round < 3; round++) {
    for (const [err, code, status] of clientErrors) {
      await assert.rejects(breaker.run(failing(err)), (thrown: unknown) => {
        assert.ok(thrown instanceof AppError);
        assert.deepEqual({ code: thrown.code, status: thrown.statusCode }, { code, status });
        return true;
      });
    }
  }
  assert.equal(breaker.state, 'closed');
  assert.equal(breaker.failures, 0);
  assert.deepEqual(transitions, []);
});

test("the database's own trouble counts and is a 503: connection, timeout, server faults", async (t) => {
  const { breaker } = breakerFor(t, { breakerTimeoutMs: 30, breakerResetMs: 10_000 });
  const answers = [await breaker.run(() => new Promise(() => {})).catch(codeOf)];
  for (const err of [
    pgError('57P01', 'terminating connection due to administrator command'),
    pgError('57014', 'canceling statement due to statement timeout'),
    refused(),
  ]) {
    answers.push(await breaker.run(failing(err)).catch(codeOf));
  }
  assert.deepEqual(answers, ['DATABASE_TIMEOUT', 'DATABASE_UNAVAILABLE', 'DATABASE_TIMEOUT', 'DATABASE_UNAVAILABLE']);
  assert.equal(breaker.failures, 3, 'the third opened it: the fourth was refused without running');
  assert.equal(breaker.state, 'open');
});

test('open: fails fast without running the batch; after the reset time one batch is tried, and a success closes it', async (t) => {
  const { breaker, transitions } = breakerFor(t, { breakerTimeoutMs: 100, breakerResetMs: 50 });
  for (let i = 0; i < 5; i++) await assert.rejects(breaker.run(failing(refused())));
  let ran = 0;
  const counted = async () => {
    ran++;
    return 'ok';
  };
  await assert.rejects(breaker.run(counted), { code: 'DATABASE_UNAVAILABLE' });
  assert.equal(ran, 0, 'an open breaker ran the batch');
  await sleep(80);
  assert.equal(breaker.state, 'half-open');
  assert.equal(await breaker.run(counted), 'ok');
  assert.equal(breaker.state, 'closed');
  assert.deepEqual(transitions, ['open', 'half-open', 'closed']);
});
