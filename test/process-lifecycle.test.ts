// The service as a process: a crash after a 201 loses nothing, and SIGTERM drains before exiting.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { postLink, startServer } from './helpers/server-process.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('process');
});
after(() => database.drop());

const env = () => ({ DATABASE_URL: database.url, BASE_URL: 'https://sho.rt', CODE_SECRET: 'process-test-secret-123' });

/** Keeps `concurrency` creates in flight until `stop()`; records every code that got a 201. */
function createBurst(base: string, concurrency: number) {
  const acknowledged = new Map<string, string>();
  const failures: string[] = [];
  const state = { running: true };
  let n = 0;
  const worker = async () => {
    while (state.running) {
      const url = `https://example.com/burst/${n++}`;
      try {
        const res = await postLink(base, { url });
        if (res.status === 201 && res.code !== undefined) acknowledged.set(res.code, url);
        else failures.push(String(res.status));
      } catch (err) {
        failures.push((err as Error).message);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, worker));
  return {
    acknowledged,
    failures,
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
  const server = await startServer({ ...env(), READINESS_DRAIN_MS: '500' });
  t.after(() => server.child.kill('SIGKILL'));
  const burst = createBurst(server.url, 50);
  t.after(() => burst.stop());
  await new Promise((resolve) => setTimeout(resolve, 700));
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
  assert.ok(burst.acknowledged.size > 50);

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
