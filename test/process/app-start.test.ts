// A start that fails part-way leaves nothing behind: whichever part fails, every socket, server,
// timer and pool the parts before it opened is closed by the time buildApp rejects (plus the
// moment sockets take to close). Resources are followed with async_hooks from the start of the
// build on, so a timer or a reconnect scheduled after the failure is caught too.

import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { buildApp, PARTS } from '../../src/app.ts';
import type { Part } from '../../src/part.ts';
import { testConfig } from '../helpers/app.ts';
import { createTestDatabase, withDatabase, type TestDatabase } from '../helpers/db.ts';
import { deleteKeys, randomPrefix, SHARED_REDIS_URL } from '../helpers/redis.ts';

/** Handles that outlive a call unless something closes them. */
const LASTING = new Set(['TCPWRAP', 'TCPSERVERWRAP', 'PIPEWRAP', 'Timeout', 'SIGNALWRAP', 'UDPWRAP']);

const prefix = randomPrefix('start');
let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('app_start');
});
after(async () => {
  await deleteKeys(SHARED_REDIS_URL, prefix);
  await database.drop();
});

/** The handles created while `fn` runs, and after it, that are still open `settleMs` later at most. */
async function openAfter(fn: () => Promise<unknown>, settleMs: number): Promise<{ error: unknown; open: string[] }> {
  const open = new Map<number, string>();
  const hook = createHook({
    init(id, type) {
      // Where it was made, so that a failure says what leaked.
      if (LASTING.has(type)) open.set(id, `${type} ${new Error().stack?.split('\n').slice(4, 12).join(' <- ')}`);
    },
    destroy(id) {
      open.delete(id);
    },
  });
  hook.enable();
  let error: unknown;
  try {
    await fn();
  } catch (err) {
    error = err;
  }
  // Turns of the event loop, not a timer (it would be one of the handles), until all are closed:
  // with nothing open, nothing is left that could open one later.
  for (const end = Date.now() + settleMs; open.size > 0 && Date.now() < end;) await new Promise(setImmediate);
  hook.disable();
  return { error, open: [...open.values()].sort() };
}

const failure = new Error('this part fails on purpose');

/**
 * Longer than ioredis's disconnect timeout (2 s): disconnect() ends the socket and keeps a timer
 * that destroys it if Redis has not closed it by then. On a busy machine Redis can take that long,
 * and a wait of exactly 2 s then saw the timer still pending (twice in full runs). Only what stays
 * open longer is a leak.
 */
const SETTLE_MS = 5000;
const failing: Part = async () => {
  throw failure;
};

function config(databaseUrl = database.url) {
  // Every part that opens something is on: Redis, a read replica (the database itself: it is probed as no standby), metrics.
  return testConfig(databaseUrl, { REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix, DATABASE_REPLICA_URLS: databaseUrl });
}

const log = pino({ level: 'silent' });

test('a start that fails after any part leaves no socket, server, timer or pool open', async () => {
  // A build that succeeds, then closes: the same check, so that a leak of the parts themselves shows.
  const whole = await openAfter(async () => {
    const app = await buildApp({ config: config(), log });
    await app.close();
  }, SETTLE_MS);
  assert.equal(whole.error, undefined);
  assert.deepEqual(whole.open, [], 'a built and closed app left these open');

  for (let n = 0; n < PARTS.length; n++) {
    const { error, open } = await openAfter(
      () => buildApp({ config: config(), log, parts: [...PARTS.slice(0, n + 1), failing] }),
      SETTLE_MS,
    );
    assert.equal(error, failure, `after part ${n + 1} of ${PARTS.length}: buildApp did not reject with the part's error`);
    assert.deepEqual(open, [], `after part ${n + 1} of ${PARTS.length} (${PARTS[n]?.name}) these were left open`);
  }
});

test('a part that fails on its own (migrations on a database that does not exist) rejects, and leaves nothing open', async () => {
  const missing = withDatabase(database.url, `${database.name}_missing`);
  const { error, open } = await openAfter(() => buildApp({ config: config(missing), log, migrate: true }), SETTLE_MS);
  assert.match(String((error as Error | undefined)?.message), /does not exist/);
  assert.deepEqual(open, []);
});
