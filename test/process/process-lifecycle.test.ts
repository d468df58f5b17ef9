// The service as a process: a crash after a 201 loses nothing, and SIGTERM drains before exiting.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBurst, inFlightAt, committedUnanswered } from '../helpers/load.ts';
import { startServer } from '../helpers/server-process.ts';
import { proxyInFront } from '../helpers/tcp-proxy.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('process');
});
after(() => database.drop());

/** Added to each packet between the service and Postgres, each way, in the SIGTERM test: a commit takes twice this at least. */
const COMMIT_DELAY_MS = 100;
/** Time enough for a request to reach the server. */
const ARRIVAL_MS = 50;

const env = () => ({ DATABASE_URL: database.url, BASE_URL: 'https://sho.rt', CODE_SECRET: 'process-test-secret-123' });

test('SIGKILL during a burst of creates: after a restart, every code that got a 201 resolves', async (t) => {
  // Commits that take a while (20 ms each way), so that creates wait for one at any moment: at
  // full speed a batch's 201s could all be out just before the kill, and none cut off.
  const { proxy, url: throughIt } = await proxyInFront(t, database.url);
  const first = await startServer({ ...env(), DATABASE_URL: throughIt });
  t.after(() => first.child.kill('SIGKILL'));
  proxy.delayMs = 20;
  const burst = createBurst(first.url, 50);
  t.after(() => burst.stop());
  // Killed once a few batches are acknowledged (1.5 s on a quiet machine; longer where other test files share it).
  const started = performance.now();
  while (performance.now() - started < 1500 || (burst.acknowledged.size <= 100 && performance.now() - started < 15_000)) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const killedAt = performance.now();
  first.child.kill('SIGKILL');
  await first.exited;
  await burst.stop();
  assert.ok(burst.acknowledged.size > 100, `only ${burst.acknowledged.size} creates acknowledged before the kill`);
  // The kill cut creates off: their clients saw the connection go, not an answer.
  const cutOff = inFlightAt(burst.creates, killedAt).filter((c) => !/^\d+$/.test(c.outcome));
  t.diagnostic(`${burst.acknowledged.size} creates acknowledged, ${cutOff.length} cut off by the kill`);
  assert.ok(cutOff.length > 0, 'creates were in flight at the kill');

  const second = await startServer(env());
  try {
    for (const [code, url] of burst.acknowledged) {
      const res = await fetch(`${second.url}/${code}`, { redirect: 'manual' });
      assert.equal(res.status, 302, `acknowledged code ${code} lost`);
      assert.equal(res.headers.get('location'), url);
    }
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
});

test('SIGTERM under load: readiness fails, in-flight creates finish, the queue drains, the process exits 0', async (t) => {
  // Commits that take a while (COMMIT_DELAY_MS each way), so that creates are still in flight when
  // the server stops accepting, drainMs after the signal.
  const { proxy, url: throughIt } = await proxyInFront(t, database.url);
  // A drain window wide enough for the polls below on a machine busy with other test files.
  const drainMs = 2000;
  const server = await startServer({ ...env(), DATABASE_URL: throughIt, READINESS_DRAIN_MS: String(drainMs) });
  t.after(() => server.child.kill('SIGKILL'));
  proxy.delayMs = COMMIT_DELAY_MS;
  const burst = createBurst(server.url, 50);
  t.after(() => burst.stop());
  await new Promise((resolve) => setTimeout(resolve, 700));
  const signalledAt = performance.now();
  server.child.kill('SIGTERM');
  // A few creates sent shortly before the server stops accepting, so that some are in flight then.
  const lastOnes = sleep(drainMs - ARRIVAL_MS - COMMIT_DELAY_MS / 2).then(() => burst.send(5));
  // During the drain delay the instance still answers, but says it is not ready.
  let ready = await fetch(`${server.url}/readyz`);
  for (let i = 0; i < 20 && ready.status === 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    ready = await fetch(`${server.url}/readyz`);
  }
  assert.equal(ready.status, 503);
  assert.equal(((await ready.json()) as { checks: { accepting: boolean } }).checks.accepting, false);
  const exit = await server.exited;
  await lastOnes;
  await burst.stop();
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.ok(server.logs.some((l) => l.msg === 'shut down cleanly'));
  const atSignal = inFlightAt(burst.creates, signalledAt);
  // The server stops accepting drainMs after the signal (it got it no earlier than signalledAt).
  // The creates it had by then wait in the write queue, which drains before the exit.
  const atClose = inFlightAt(burst.creates, signalledAt + drainMs, ARRIVAL_MS);
  t.diagnostic(`${atSignal.length} creates in flight at the signal, ${atClose.length} when the server stopped accepting`);
  // Every create in flight when the signal came was answered 201: none was cut off.
  assert.ok(atSignal.length > 0, 'creates in flight at the signal');
  assert.deepEqual(
    atSignal.map((c) => c.outcome).filter((o) => o !== '201'),
    [],
  );
  assert.ok(atClose.length > 0, 'creates in flight when the server stopped accepting');
  assert.ok(
    atClose.some((c) => c.outcome === '201'),
    'a create in flight when the server stopped accepting got its 201',
  );
  // The others never reached the service (a keep-alive connection closed as idle while the request
  // was on its way, on a busy machine): no answer, and no link either. One it had is answered.
  assert.deepEqual(
    atClose.map((c) => c.outcome).filter((o) => o !== '201' && !o.startsWith('UND_ERR') && !o.startsWith('ECONN')),
    [],
  );
  const unanswered = atClose.filter((c) => c.outcome !== '201');
  const committed = new Set(await committedUnanswered(database.url, unanswered));
  // How each committed-but-unanswered create went, relative to the signal, should this ever fail.
  const seen = unanswered
    .filter((c) => committed.has(c.url))
    .map((c) => `${c.outcome} sent at +${Math.round(c.sentAt - signalledAt)} ms, failed after ${Math.round(c.ms)} ms`);
  assert.deepEqual(seen, [], `exit logs: ${JSON.stringify(server.logs.slice(-5))}`);

  const restarted = await startServer(env());
  try {
    for (const [code, url] of burst.acknowledged) {
      const res = await fetch(`${restarted.url}/${code}`, { redirect: 'manual' });
      assert.equal(res.headers.get('location'), url, `acknowledged code ${code} lost`);
    }
  } finally {
    restarted.child.kill('SIGTERM');
    await restarted.exited;
  }
});

test('SIGTERM with a request in flight on a keep-alive connection that then goes quiet: exit at once, not after the keep-alive timeout', async (t) => {
  const server = await startServer(env());
  t.after(() => server.child.kill('SIGKILL'));
  const { port } = new URL(server.url);
  const body = JSON.stringify({ url: 'https://example.com/last-one' });
  // Half a request: it is in flight when the signal arrives; the rest follows after.
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/links',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'keep-alive' },
  });
  const response = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, 10));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const signalled = Date.now();
  server.child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 200));
  req.end(body.slice(10));
  assert.equal(await response, 201);
  const exit = await server.exited;
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.ok(Date.now() - signalled < 3000, `exit took ${Date.now() - signalled} ms`);
});
