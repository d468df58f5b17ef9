// The load suite: every path of the service measured against its baseline in one run.
//
//   npm run load                                   the whole suite, on embedded defaults (or DATABASE_URL)
//   npm run load -- --scenario hot,not-found       only these scenarios (and what they need)
//   npm run load -- --url http://host:port --scenario hot     against an existing deployment
//   npm run load -- --links 1000000 --seconds 10  bigger and longer
//   REDIS_URL=redis://127.0.0.1:6379 npm run load   with the Redis tier (the redis scenario needs it)
//   taskset -c 0 npm run load -- --server-cpus 1 --scenario baseline,hot --against ../old
//                                                  per core, and the service of another checkout in the same rounds
//
// Each scenario is a file of load/scenarios/, whose header says how to run it. This runner starts
// what the chosen ones need once (the main service, seeded through POST /links), runs them in
// order, judges every target, prints one table, and writes load/results/<timestamp>.json and
// .html. The redirect runs are driven by wrk when it is installed (autocannon in this process tops
// out below a fast path), the others by autocannon. Read the ratios, not the absolute figures: the
// load generator and the servers share the machine's cores.

import { openContext } from './open-context.ts';
import { parseOptions } from './options.ts';
import { choose, serviceSettings, stepsOf } from './plan.ts';
import { report, runSteps } from './runner.ts';
import { LoadError } from './scenario.ts';
import { SCENARIOS } from './scenarios/index.ts';

const options = parseOptions(
  process.argv.slice(2),
  SCENARIOS.map((scenario) => scenario.name),
);
const context = await openContext(options, SCENARIOS);
const chosen = choose(SCENARIOS, options.scenarios, context.setup);

// Whatever happens, the suite ends by itself: every run is bounded, and so is the whole.
const minutes = 20 + chosen.reduce((sum, scenario) => sum + (scenario.minutes?.(options) ?? 0), 0);
const watchdog = setTimeout(() => {
  console.error(`load: the suite ran longer than ${minutes} minutes; stopping`);
  void abandon(1);
}, minutes * 60_000);
// Ctrl-C: stop the servers, drop the scratch databases, remove the scratch folder.
process.once('SIGINT', () => void abandon(130));

context.log(`load generator: ${context.setup.generatorNote}; ${context.setup.cpusNote}`);
try {
  await runSteps(context, stepsOf(chosen, context.setup), serviceSettings(chosen));
  await report(context);
} catch (err) {
  console.error(err instanceof LoadError ? `load: ${err.message}` : err);
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
  await context.processes.close();
}

/** Ends the suite from outside its flow (watchdog, Ctrl-C), leaving nothing behind. */
async function abandon(code: number): Promise<never> {
  await context.processes.abandon();
  return process.exit(code);
}
