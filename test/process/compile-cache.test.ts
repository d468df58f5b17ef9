// The service turns Node's compile cache on by itself (src/process/main.ts): with no
// NODE_COMPILE_CACHE in its environment, a start after the first takes each module's source with
// its types stripped, and its compiled code, from the checkout's node_modules/.cache. Node says
// what its cache does with NODE_DEBUG_NATIVE=COMPILE_CACHE; an invalid PORT ends each start
// (exit 78) once the process's modules are loaded, before anything listens.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

const MAIN = new URL('../../src/process/main.ts', import.meta.url).pathname;
const CACHE = new URL('../../node_modules/.cache/node-compile-cache', import.meta.url).pathname;
const EX_CONFIG = 78;

/** One start of the service that stops at its configuration; its exit code and what Node's cache said. */
function startOnce(): Promise<{ code: number | null; said: string }> {
  // Only what a plain `npm start` would have: no NODE_COMPILE_CACHE (npm test sets one for its children).
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', NODE_DEBUG_NATIVE: 'COMPILE_CACHE', PORT: 'not-a-port' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, said })));
}

test('a start without NODE_COMPILE_CACHE uses the checkout’s cache: the second takes the process’s modules stripped and compiled from it', async () => {
  const first = await startOnce();
  assert.equal(first.code, EX_CONFIG, first.said.slice(-2000));
  assert.ok(first.said.includes(`resolved path ${CACHE}`), `the cache folder is the checkout's own: ${first.said.slice(0, 500)}`);

  const second = await startOnce();
  assert.equal(second.code, EX_CONFIG);
  const start = 'file://' + new URL('../../src/process/start.ts', import.meta.url).pathname;
  assert.ok(
    second.said.includes(`retrieving transpile cache for StrippedTypeScript ${start}...success`),
    'the types of start.ts are not stripped again',
  );
  assert.ok(second.said.includes(`V8 code cache for ESM ${start} was accepted`), 'nor is it compiled again');
});
