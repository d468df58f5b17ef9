// Keeps process.nextTick fast for the life of the process. Node builds each tick as an object
// literal with computed keys ({ [async_id_symbol], ..., callback, args }); V8's feedback for such
// a literal is monomorphic or, once the object's hidden class has changed, megamorphic for good.
// Nothing holds those hidden classes between ticks: the full GCs of the start-up (the embedded
// engine, the app's build) collected them while no tick was queued, the next tick built new ones,
// and every tick after that took four runtime calls. Holding one real tick object keeps them.
//
// Measured: `node load/tick-cost.ts` (a chain of ticks after two full GCs, on a busy 2-core
// machine) 611–812 ns per tick without it, 202–269 with it; in the service under a pinned hot
// load, nextTick fell from 11–13 % of the server's CPU to 1.6–2.2 % (server on core 1, wrk -t1
// -c100 on core 0, 5,000 cached links, cpu-prof).
//
// Imported first by src/process/main.ts. No hook stays enabled; trackPromises: false, because a V8
// promise hook turns off V8's promise fast paths for good, even once disabled; and not
// executionAsyncResource(), whose first call routes every native callback through JavaScript.

import { createHook } from 'node:async_hooks';

/** The tick object kept alive; exported so that nothing can prove it unused. */
export const keptTick: { entry: object | null } = { entry: null };

const hook = createHook({
  trackPromises: false,
  init(_id, type, _trigger, resource: object) {
    if (type === 'TickObject' && keptTick.entry === null) keptTick.entry = resource;
  },
});
hook.enable();
process.nextTick(() => {});
hook.disable();
