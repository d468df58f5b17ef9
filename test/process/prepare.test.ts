// `npm ci` runs scripts/prepare.ts (package.json's prepare): afterwards a first start finds the
// process's modules in the compile cache, and a new embedded data folder has a template to copy.
// Node says what its cache does with NODE_DEBUG_NATIVE=COMPILE_CACHE; an invalid PORT ends the
// start (exit 78) once the process's modules are loaded, before anything listens.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

const ROOT = new URL('../../', import.meta.url).pathname;
const EX_CONFIG = 78;

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'shortener-prepare-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
}

test('after the prepare script, a first start takes every module of the service from the compile cache, and the embedded engine has its template', async () => {
  const cache = join(scratch, 'compile-cache');
  const templates = join(scratch, 'templates');
  const prepared = await run(['scripts/prepare.ts'], { NODE_COMPILE_CACHE: cache, EMBEDDED_TEMPLATE_DIR: templates });
  assert.equal(prepared.code, 0, prepared.err);
  assert.equal(prepared.err, '', 'nothing went wrong');
  const made = readdirSync(templates);
  assert.equal(made.length, 1, `one template: ${made.join(', ')}`);
  assert.match(made[0] ?? '', /^pglite-/);
  assert.ok(existsSync(join(templates, made[0] ?? '', 'PG_VERSION')));

  const first = await run(['src/process/main.ts'], { NODE_COMPILE_CACHE: cache, NODE_DEBUG_NATIVE: 'COMPILE_CACHE', PORT: 'not-a-port' });
  assert.equal(first.code, EX_CONFIG, first.err.slice(-2000));
  // The service's own modules and its dependencies, from the first to the last the process loads.
  for (const file of [
    'src/process/serve.ts',
    'src/app.ts',
    'src/edge/fast-path.ts',
    'src/db/database.ts',
    'node_modules/fastify/fastify.js',
  ]) {
    // Node names an ES module by its URL, a CommonJS one by its path.
    const name = file.endsWith('.ts') ? `ESM file://${ROOT}${file}` : `CommonJS ${ROOT}${file}`;
    if (file.endsWith('.ts'))
      assert.ok(
        first.err.includes(`retrieving transpile cache for StrippedTypeScript file://${ROOT}${file}...success`),
        `${file} is not stripped again`,
      );
    assert.ok(first.err.includes(`V8 code cache for ${name} was accepted`), `${file} is not compiled again`);
  }
});
