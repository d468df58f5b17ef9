// What a redirect never needs is not loaded at start: the embedded engine (PGlite, only without
// DATABASE_URL), nodemailer (at the first message) and @simplewebauthn/server (at the first passkey
// ceremony). Node's compile cache names every module the process loads
// (NODE_DEBUG_NATIVE=COMPILE_CACHE); an invalid PORT ends the start (exit 78) once they are loaded.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = new URL('../../', import.meta.url).pathname;

test('a start loads fastify and pg, and neither PGlite, nodemailer nor @simplewebauthn/server', async (t) => {
  const cache = await mkdtemp(join(tmpdir(), 'shortener-lazy-'));
  t.after(() => rm(cache, { recursive: true, force: true }));
  const child = spawn(process.execPath, ['src/process/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_COMPILE_CACHE: cache, NODE_DEBUG_NATIVE: 'COMPILE_CACHE', PORT: 'not-a-port' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
  assert.equal(await new Promise((resolve) => child.once('exit', resolve)), 78, said.slice(-2000));
  const loaded = (name: string): boolean => said.includes(`${ROOT}node_modules/${name}/`);
  assert.deepEqual(
    ['fastify', 'pg', '@electric-sql/pglite', 'nodemailer', '@simplewebauthn/server'].map((name) => [name, loaded(name)]),
    [
      ['fastify', true],
      ['pg', true],
      ['@electric-sql/pglite', false],
      ['nodemailer', false],
      ['@simplewebauthn/server', false],
    ],
  );
});
