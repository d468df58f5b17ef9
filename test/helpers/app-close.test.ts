// The clean-up of startApp (app.ts) ends promptly when a client's request is in flight as the app
// closes, as a browser's often is when a dashboard test ends: that connection is closed once its
// answer is out, not KEEP_ALIVE_TIMEOUT_MS (72 s by default) later.

import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApp, type Cleanup } from './app.ts';
import { createTestDatabase, holdLookups, insertRawLinks, type TestDatabase } from './db.ts';
import { freePort } from './redis.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('app_close');
  await insertRawLinks(database.url, ['held']);
});
after(() => database.drop());

test("a keep-alive request in flight at close: the app's clean-up ends once it is answered, its connection closed", async () => {
  const gate = holdLookups();
  const cleanups: (() => Promise<void>)[] = [];
  const collect: Cleanup = { after: (fn) => cleanups.push(fn) };
  // node:http's listener (FAST_PATH=false) answers the redirect, as it answers a browser's API requests.
  const { app } = await startApp(collect, database.url, { FAST_PATH: 'false' }, { wrapDb: gate.wrapDb });
  const port = await freePort();
  await app.listen({ port, host: '127.0.0.1' });
  const agent = new Agent({ keepAlive: true });
  after(() => agent.destroy());
  let socketClosed = false;
  const answered = new Promise<number>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/held', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('socket', (socket) => socket.on('close', () => (socketClosed = true)));
    req.on('error', reject);
    req.end();
  });
  await gate.reached;

  const started = performance.now();
  const cleaned = (async () => {
    for (const cleanup of cleanups) await cleanup();
  })();
  // close() has begun with the request in flight; then its answer goes out.
  await sleep(100);
  gate.release();
  assert.equal(await answered, 302);
  await cleaned;
  const took = performance.now() - started;
  assert.ok(took < 10_000, `the clean-up took ${Math.round(took)} ms: it waited for the keep-alive timeout`);
  assert.ok(socketClosed, "the client's connection was closed");
});
