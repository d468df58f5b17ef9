// The service as a process: a crash after a 201 loses nothing, and SIGTERM drains before exiting.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { request } from 'node:http';
import { postLink, startServer } from './helpers/server-process.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('process');
});
after(() => database.drop());

const env = () => ({ DATABASE_URL: database.url, BASE_URL: 'https://sho.rt', CODE_SECRET: 'process-test-secret-123' });

/**
 * Keeps `concurrency` creates in flight until `stop()`. Records every code that got a 201, and the
 * outcome of every create that was already sent when `mark()` was called.
 */
function createBurst(base: string, concurrency: number) {
  const acknowledged = new Map<string, string>();
  const sentBeforeMark: Promise<string>[] = [];
  const state = { running: true, marked: false };
  let n = 0;
  const worker = async () => {
    while (state.running) {
      const url = `https://example.com/burst/${n++}`;
      const outcome = postLink(base, { url }).then(
        (res) => {
          if (res.status === 201 && res.code !== undefined) acknowledged.set(res.code, url);
          return String(res.status);
        },
        (err: Error) => (err.cause as { code?: string } | undefined)?.code ?? err.message,
      );
      if (!state.marked) sentBeforeMark.push(outcome);
      if ((await outcome) !== '201') await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, worker));
  return {
    acknowledged,
    sentBeforeMark,
    mark: () => {
      state.marked = true;
    },
    stop: async () => {
      state.running = false;
      await done;
    },
  };
}

test('SIGKILL during a burst of creates: after a restart, every code that got a 201 resolves', async (t) => {
  const first = await startServer(env());
  const burst = createBurst(first.url, 50);
  t.after(() => burst.stop());
  await new Promise((resolve) => setTimeout(resolve, 1500));
  first.child.kill('SIGKILL');
  await first.exited;
  await burst.stop();
  assert.ok(burst.acknowledged.size > 100, `only ${burst.acknowledged.size} creates acknowledged before the kill`);

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
  // A drain window wide enough for the polls below on a machine busy with other test files.
  const server = await startServer({ ...env(), READINESS_DRAIN_MS: '2000' });
  t.after(() => server.child.kill('SIGKILL'));
  const burst = createBurst(server.url, 50);
  t.after(() => burst.stop());
  await new Promise((resolve) => setTimeout(resolve, 700));
  burst.mark();
  server.child.kill('SIGTERM');
  // During the drain delay the instance still answers, but says it is not ready.
  let ready = await fetch(`${server.url}/readyz`);
  for (let i = 0; i < 20 && ready.status === 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    ready = await fetch(`${server.url}/readyz`);
  }
  assert.equal(ready.status, 503);
  assert.equal(((await ready.json()) as { checks: { accepting: boolean } }).checks.accepting, false);
  const exit = await server.exited;
  await burst.stop();
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.ok(server.logs.some((l) => l.msg === 'shut down cleanly'));
  // Every create already sent when the signal went out was answered 201: none was cut off.
  const outcomes = await Promise.all(burst.sentBeforeMark);
  assert.ok(outcomes.length >= 50, `${outcomes.length} creates in flight at the signal`);
  assert.deepEqual(
    outcomes.filter((o) => o !== '201'),
    [],
  );

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
