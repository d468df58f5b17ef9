// The process's entry (`npm start`): Node's compile cache first, then the process (start.ts). Run
// `node src/process/main.ts` directly (not through npm or a shell) so that the signals reach it.
//
// With the cache on, every start after the first reads each module's compiled code, and its source
// with the types already stripped, from a folder instead of parsing and stripping it again (this
// file alone is stripped at every start, before the cache is on). The folder is NODE_COMPILE_CACHE, or the checkout's own
// node_modules/.cache (not the shared temporary folder, where another user could leave code for
// the service to run); where it cannot be written the service starts without it, and
// NODE_DISABLE_COMPILE_CACHE=1 turns it off. What it saves: docs/performance.md#start-up.

import { enableCompileCache } from 'node:module';

// Before any other module: a static import would be loaded, and compiled, before this line runs.
enableCompileCache(process.env.NODE_COMPILE_CACHE ?? new URL('../../node_modules/.cache/node-compile-cache', import.meta.url).pathname);
await import('./start.ts');
