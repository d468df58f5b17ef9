// Run by `npm ci` and `npm install` (package.json's prepare, after the dashboard's build): readies
// what a fresh checkout's first `npm start` would otherwise make on its own time. Both are caches:
// a failure here is said and the install goes on, and the first start makes what is missing.
// - Node's compile cache (src/process/main.ts): every module the process loads, its types stripped
//   and compiled, in the folder the service reads them from.
// - The embedded engine's template (src/db/embedded.ts): a new data folder is then a copy, not an
//   initdb.
// What each saves a first start: docs/performance.md#start-up.

import { readFileSync } from 'node:fs';
import { enableCompileCache, flushCompileCache } from 'node:module';

const say = (line: string): boolean => process.stdout.write(`${line}\n`);

// Before any module of the service is loaded, as main.ts does, and to the same folder.
const cacheDir = process.env.NODE_COMPILE_CACHE ?? new URL('../node_modules/.cache/node-compile-cache', import.meta.url).pathname;
enableCompileCache(cacheDir);

try {
  const started = performance.now();
  // The process's modules are what start.ts imports (main.ts imports only start.ts, which would
  // run the service): each is loaded here, with all that it imports.
  const start = new URL('../src/process/start.ts', import.meta.url);
  const imports = [...readFileSync(start, 'utf8').matchAll(/^import (?:[^;]*? from )?'(\.[^']+)';$/gm)].map((match) => match[1] ?? '');
  for (const path of imports) await import(new URL(path, start).href);
  flushCompileCache();
  say(`compile cache: ${cacheDir}, the ${imports.length} imports of start.ts (${Math.round(performance.now() - started)} ms)`);
} catch (err) {
  console.error(`the compile cache was not filled, so the first start will compile every module: ${(err as Error).message}`);
}

try {
  const started = performance.now();
  const { loadConfig } = await import('../src/config/config.ts');
  const { embeddedTemplate } = await import('../src/db/embedded.ts');
  const template = await embeddedTemplate(loadConfig().embeddedTemplateDir);
  say(`embedded engine template: ${template} (${Math.round(performance.now() - started)} ms)`);
} catch (err) {
  console.error(`the embedded engine's template was not made, so the first start will run initdb: ${(err as Error).message}`);
}
