// `npm run client`: regenerates the typed client (src/client/generated/) from the OpenAPI document that the routes'
// schemas make (GET /docs/json), with @hey-api/openapi-ts. test/ops/client.test.ts regenerates it the same way and
// fails when the committed files differ: a route's change lands with its client's.
//
// The generator prints its TypeScript with the compiler API of TypeScript 5, which TypeScript 7 (ours) no longer
// has: its `import 'typescript'` is pointed at `typescript5` (a dev dependency alias of typescript@5), for the
// generator's modules only.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pino } from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';

export const GENERATED = new URL('../src/client/generated/', import.meta.url).pathname;

/**
 * The generator's own fetch runtime, copied into the output as it ships (folders `client/` and `core/`). It is
 * written for TypeScript's default options: under our exactOptionalPropertyTypes it does not check, so it is not
 * checked here (its authors test it); the operations and types generated from our document are.
 */
const RUNTIME_FOLDERS = ['client/', 'core/'];
const UNCHECKED = '// @ts-nocheck: @hey-api/openapi-ts copies this runtime as it ships (scripts/client.ts says why)\n';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/@hey-api/') === true) return next('typescript5', context);
    return next(specifier, context);
  },
});

/** Writes the client for `document` into `outDir` (emptied first). */
export async function generateClient(document: Record<string, unknown>, outDir: string): Promise<void> {
  const { createClient } = await import('@hey-api/openapi-ts');
  // The servers' URL is the deployment's BASE_URL: a client is given its own.
  const { servers: _servers, ...input } = document;
  rmSync(outDir, { recursive: true, force: true });
  await createClient({
    input,
    logs: { level: 'silent' },
    output: { path: outDir, importFileExtension: '.ts' },
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
  });
  for (const file of filesUnder(outDir)) {
    if (!RUNTIME_FOLDERS.some((folder) => file.startsWith(folder))) continue;
    const path = join(outDir, file);
    writeFileSync(path, UNCHECKED + readFileSync(path, 'utf8'));
  }
}

/** Every file under `dir`, as paths relative to it, sorted. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** The OpenAPI document of an app built on the embedded engine in a folder of its own (or on DATABASE_URL when set). */
async function currentDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'shortener-client-'));
  try {
    const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', EMBEDDED_DATA_DIR: dataDir });
    const app = await buildApp({ config, log: pino({ level: 'silent' }), migrate: true });
    try {
      return (await app.inject({ url: '/docs/json' })).json<Record<string, unknown>>();
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await generateClient(await currentDocument(), GENERATED);
  console.error(`wrote ${filesUnder(GENERATED).length} files to ${relative(process.cwd(), GENERATED)}`);
}
