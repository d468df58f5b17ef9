// Keeps process.nextTick fast for the life of the process: it holds one real tick object, so that
// the hidden classes of Node's tick objects outlive the full GCs of start-up and nextTick's
// feedback never turns megamorphic. Imported first by src/process/main.ts. Why, and what it saves
// (`node load/tick-cost.ts`): docs/performance.md#why-processnexttick-was-dear-in-the-service.

import { createHook } from 'node:async_hooks';

/** The tick object kept alive; exported so that nothing can prove it unused. */
export const keptTick: { entry: object | null } = { entry: null };

// No hook stays enabled. trackPromises: false, because a V8 promise hook turns off V8's promise
// fast paths for good, even once disabled; and not executionAsyncResource(), whose first call
// routes every native callback through JavaScript.
const hook = createHook({
  trackPromises: false,
  init(_id, type, _trigger, resource: object) {
    if (type === 'TickObject' && keptTick.entry === null) keptTick.entry = resource;
  },
});
hook.enable();
process.nextTick(() => {});
hook.disable();
