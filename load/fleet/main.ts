// npm run fleet [-- --seconds 240 --rate 600 --connections 32 --out load/results --history FILE]
//
// The whole fleet on this machine (HAProxy, three instances, a Redis Cluster with replicas, a
// Postgres primary and its streaming standby) under a bounded mix of traffic, with six faults
// injected one after another, then checked Jepsen style. Prints the timeline and the checks, writes
// load/results/fleet-<timestamp>.json and .html (the timeline as a chart), and exits 1 if a check
// failed. Needs initdb, postgres and pg_basebackup, redis-server and redis-cli, and haproxy on the
// PATH (see the README's "Fleet test").

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { renderFleetReport, renderTimelineText } from './report.ts';
import { runFleet } from './run.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '240' },
    rate: { type: 'string', default: '600' },
    connections: { type: 'string', default: '32' },
    out: { type: 'string', default: 'load/results' },
    history: { type: 'string' },
  },
});

const seconds = Number(values.seconds);
const rate = Number(values.rate);
const connections = Number(values.connections);
if (![seconds, rate, connections].every((value) => Number.isInteger(value) && value > 0)) {
  console.error('--seconds, --rate and --connections take positive integers');
  process.exit(2);
}

// The faults take about a minute in all; the rest of the time is spread around them.
const gapSeconds = Math.max(3, Math.round(seconds / 12));
const result = await runFleet({
  seconds,
  rate,
  connections,
  seedLinks: 2000,
  warmupSeconds: gapSeconds,
  gapSeconds,
  tailSeconds: Math.max(12, gapSeconds),
  holdMs: 5000,
  command: `npm run fleet -- --seconds ${seconds} --rate ${rate} --connections ${connections}`,
  log: (line) => console.log(line),
  // Every request and write as JSON, for whoever digs into a failed check.
  ...(values.history === undefined
    ? {}
    : { keep: (history) => writeFileSync(values.history as string, JSON.stringify({ ...history, links: [...history.links.values()] })) }),
});

console.log(`\n${renderTimelineText(result)}`);
mkdirSync(values.out, { recursive: true });
const stamp = result.startedAt.replaceAll(':', '-').replace(/\.\d+Z$/, 'Z');
const jsonPath = join(values.out, `fleet-${stamp}.json`);
const htmlPath = join(values.out, `fleet-${stamp}.html`);
writeFileSync(jsonPath, `${JSON.stringify(result, null, 2)}\n`);
writeFileSync(htmlPath, renderFleetReport(result));
console.log(`\nresults: ${jsonPath}\nreport:  ${htmlPath}`);
process.exitCode = result.checks.every((check) => check.ok) ? 0 : 1;
