// The deployment's secrets: a process that would serve with a published CODE_SECRET does not start, and
// no secret reaches a message or a log line. Each test starts the real service (src/process/main.ts) as
// a child process, the way an operator does.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { createTestDatabase, withDatabase, type TestDatabase } from '../helpers/db.ts';
import { compileCacheEnv, startServer } from '../helpers/server-process.ts';

const SERVER = new URL('../../src/process/main.ts', import.meta.url).pathname;
const DEV_DEFAULT = 'dev-only-secret-change-me-in-production';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('security_secrets');
});
after(async () => {
  await database.drop();
});

interface Run {
  readonly code: number | null;
  readonly output: string;
  /** Whether it got as far as listening (then it was stopped). */
  readonly listened: boolean;
}

/** Runs the service with `env` until it exits, or until it listens (then stops it): at most 20 s. */
async function run(env: Record<string, string | undefined>): Promise<Run> {
  const clean = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const child = spawn(process.execPath, [SERVER], {
    env: {
      PATH: process.env.PATH ?? '',
      ...compileCacheEnv(),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      BASE_URL: 'https://sho.rt',
      ...clean,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let listened = false;
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (!listened && output.includes('Server listening at')) {
      listened = true;
      child.kill('SIGTERM');
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, output, listened };
}

test('a process serving from a real database refuses the development CODE_SECRET: exit 78, the variable named, nothing served', async () => {
  for (const secret of [undefined, DEV_DEFAULT, 'CHANGE-ME-placeholder-not-a-secret']) {
    const result = await run({ DATABASE_URL: database.url, CODE_SECRET: secret });
    assert.equal(result.listened, false, `CODE_SECRET=${String(secret)} served:\n${result.output}`);
    assert.equal(result.code, 78, result.output);
    assert.match(result.output, /CODE_SECRET is the development default or a placeholder/);
  }
});

test('NODE_ENV=production refuses it even on the embedded engine; NODE_ENV=development accepts it with a warning', async () => {
  const production = await run({ NODE_ENV: 'production', EMBEDDED_DATA_DIR: '/nonexistent/never-opened' });
  assert.equal(production.listened, false, production.output);
  assert.equal(production.code, 78, production.output);

  const development = await run({ NODE_ENV: 'development', DATABASE_URL: database.url });
  assert.equal(development.listened, true, development.output);
  assert.match(development.output, /CODE_SECRET is the development default or a placeholder: set your own/);
});

test('a bad DATABASE_URL, REDIS_URL or CODE_SECRET is named in the error, its value (a password) is not', async () => {
  const result = await run({
    DATABASE_URL: 'mysql://admin:Pg-pass-w0rd-leak@db.internal/x',
    REDIS_URL: 'http://:Redis-pass-leak@cache.internal:6379',
    CODE_SECRET: 'short-s3cret',
  });
  assert.equal(result.code, 78, result.output);
  assert.match(result.output, /DATABASE_URL \(\d+ characters, not shown\): expected a postgres:\/\/ URL/);
  assert.match(result.output, /REDIS_URL \(\d+ characters, not shown\)/);
  assert.match(result.output, /CODE_SECRET \(12 characters, not shown\): expected at least 16 characters/);
  for (const secret of ['Pg-pass-w0rd-leak', 'Redis-pass-leak', 'short-s3cret']) assert.ok(!result.output.includes(secret), secret);
});

test("a served process's log lines at debug hold neither the database password nor CODE_SECRET", async (t) => {
  // Trust authentication takes any password: the URL carries one that must never be logged.
  const url = new URL(withDatabase(database.url, database.name));
  url.password = 'Db-pass-in-logs-9';
  const secret = 'Code-secret-in-logs-0123456789';
  const server = await startServer({ DATABASE_URL: url.href, CODE_SECRET: secret, LOG_LEVEL: 'debug', BASE_URL: 'https://sho.rt' });
  t.after(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });
  const created = await fetch(`${server.url}/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', host: 'sho.rt' },
    body: JSON.stringify({ url: 'https://example.com/logged' }),
  });
  await created.arrayBuffer();
  await (await fetch(`${server.url}/nope-such-code`, { redirect: 'manual' })).arrayBuffer();
  await (await fetch(`${server.url}/readyz`)).arrayBuffer();
  server.child.kill('SIGTERM');
  await server.exited;
  const lines = JSON.stringify(server.logs);
  assert.ok(server.logs.length > 3, 'the server logged');
  assert.ok(!lines.includes('Db-pass-in-logs-9'), 'database password in a log line');
  assert.ok(!lines.includes(secret), 'CODE_SECRET in a log line');
});
