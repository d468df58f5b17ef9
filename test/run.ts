// `npm test`: every test file, three at a time, the longest first, so that none of them is left
// running alone at the end. `node --test` cannot do this: it sorts the files it is given (named
// or globbed) alphabetically, which started the fleet test past the middle of the run. node:test's
// run() keeps the order of its list. Arguments, when given, name the files (or globs) to run instead.

import { globSync } from 'node:fs';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

/**
 * The files that take longest, longest first, with their seconds (each file alone, `node --test
 * <file>`, on two cores busy with other work). A new file that takes over twenty seconds belongs here.
 */
const LONGEST_FIRST = [
  'test/fleet/fleet.test.ts', // 100
  'test/analytics/analytics.test.ts', // 68
  'test/load/load-smoke.test.ts', // 55
  'test/edge/fast-path-differential.test.ts', // 46
  'test/resolve/read-replicas.test.ts', // 45
  'test/redis/redis-cluster.test.ts', // 43
  'test/security/domains.test.ts', // 40
  'test/db/embedded.test.ts', // 36
  'test/redis/redis-tier.test.ts', // 36
  'test/links/manage.test.ts', // 34
  'test/faults/redis-outage.test.ts', // 33
  'test/faults/fault-matrix-redis.test.ts', // 31
  'test/process/process-lifecycle.test.ts', // 30
  'test/cli/cli.test.ts', // 32-41 with three other jobs on the two cores: ~45 runs of the command
  'test/process/cluster.test.ts', // 29
  'test/links/link-options.test.ts', // 29
  'test/faults/fault-matrix-process.test.ts', // 28
  'test/webhooks/webhooks.test.ts', // 28
  'test/dashboard/dashboard.test.ts', // 25
  'test/edge/slow-clients.test.ts', // 24
  'test/edge/fast-path.test.ts', // 24
  'test/faults/fault-matrix-postgres.test.ts', // 24
  'test/resolve/code-space.test.ts', // 24
];

const root = new URL('..', import.meta.url).pathname;
process.chdir(root);
// Every test file and every service a test starts loads most of src/: compiled once, then reused
// (test/helpers/server-process.ts hands the directory to the children it gives an environment of their own).
process.env.NODE_COMPILE_CACHE ??= `${root}node_modules/.cache/node-compile-cache`;

const patterns = process.argv.slice(2);
const files = patterns.length > 0 ? patterns.flatMap((pattern) => globSync(pattern).sort()) : allFiles();
// Three, not four: on a slow two-core machine four heavy files at once (the fleet, a Redis Cluster, the
// differential, Chromium) starved one another until fault tests missed their bounds (issue 38's CI runs).
const stream = run({ files, concurrency: 3, timeout: 120_000 });
stream.on('test:summary', (summary) => {
  if (summary.file === undefined && !summary.success) process.exitCode = 1;
});
stream.compose(new spec()).pipe(process.stdout);

function allFiles(): string[] {
  const found = new Set(globSync('test/**/*.test.ts').sort());
  const gone = LONGEST_FIRST.filter((file) => !found.has(file));
  if (gone.length > 0) throw new Error(`test/run.ts names files that do not exist: ${gone.join(', ')}`);
  return [...new Set([...LONGEST_FIRST, ...found])];
}
