// The link list's latency in a big workspace: --list-links links seeded straight into a scratch
// database (load/list-seed.ts), the service on it, and each shape of GET /links (load/list-bench.ts)
// asked --list-requests times over LIST_CONNECTIONS connections by autocannon, which times every
// response from its request's write to its last byte; then each shape's plan, and the export of the
// whole list, once. One run per shape, and one over all of them ('list'). It runs first, while
// nothing else does.
//
//   DATABASE_URL=postgres://… npm run load -- --scenario list --list-links 1000000

import type { Request } from 'autocannon';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { createTestDatabase, withClient } from '../../test/helpers/db.ts';
import type { ServerProcess } from '../../test/helpers/server-process.ts';
import type { Context } from '../context.ts';
import { chooseTerms, deepCursors, explainPath, exportAll, listAnswers, listShapes, type ListShape } from '../list-bench.ts';
import { LIST_WORKSPACE_ID, seedList, type SeededList } from '../list-seed.ts';
import { measure, type Variant } from '../measure.ts';
import { percentiles } from '../percentiles.ts';
import { slowestPlan } from '../report/describe.ts';
import { ONLY_LOCAL, type OnItsOwn } from '../scenario.ts';
import { notApplicable, type Judged } from '../targets.ts';
import type { ListExport, ListFigures, ListPlan, RunResult, TargetResult } from '../types.ts';

/**
 * Each shape of GET /links is asked over this many connections: a few people on the dashboard at
 * once, not a flood (the list's goal is a latency, not a rate).
 */
const LIST_CONNECTIONS = 4;
/** Requests of each list shape before the measured ones, not counted. */
const LIST_WARMUP = 20;
/** The most a list shape may take; a shape that slow is stopped and measured on what it answered. */
const LIST_SHAPE_SECONDS = 60;
/** The link list's goal, from its issue: "p99 under 50 ms with 1M links". */
const LIST_P99_GOAL_MS = 50;

export const list: OnItsOwn = {
  name: 'list',
  needs: ['processes', 'postgres'],
  answers: ['200'],
  targets: [listLatency, listExport],
  // Its seeding and index builds took 62–66 s per million links on two cores: 18–21 s of links,
  // 6–7 s of totals, 36–39 s of indexes (--scenario list, 2026-12-02).
  minutes: (options) => Math.ceil(options.listLinks / 1_000_000) * 10,
  async run(context) {
    if (!context.setup.local) return [context.skip('list', 'list', ONLY_LOCAL)];
    if (process.env.DATABASE_URL === undefined) {
      const why =
        'needs DATABASE_URL: it seeds its workspace with SQL into a scratch database (the embedded engine is one session, held by the service)';
      return [context.skip('list', 'list', why)];
    }
    const db = await createTestDatabase('list');
    context.processes.onCleanup(() => db.drop());
    context.log(`list: seeding ${context.options.listLinks.toLocaleString('en-US')} links into the scratch database ${db.name}`);
    const seeded = await seedList(db.url, context.options.listLinks, context.log);
    // Its connections are people of one workspace: each may search at once (LIST_SLOW_PER_WORKSPACE is a
    // fair share between workspaces, which this scenario does not measure).
    const server = await context.processes.launch({ DATABASE_URL: db.url, LIST_SLOW_PER_WORKSPACE: String(LIST_CONNECTIONS) });
    try {
      const key = await withClient(db.url, (client) =>
        createApiKey(client, { name: 'list benchmark', role: 'viewer', workspaceId: LIST_WORKSPACE_ID }),
      );
      const terms = await chooseTerms(db.url, seeded);
      const deep = {
        created: await deepCursors(server.url, key.secret, 'created'),
        clicks: await deepCursors(server.url, key.secret, 'clicks'),
      };
      const pooled: number[] = [];
      const shapes: RunResult[] = [];
      for (const shape of listShapes(seeded, terms, deep)) shapes.push(await shapeRun(context, server, db.url, key.secret, shape, pooled));
      const exported = await exportOnce(context, server, key.secret);
      return [...shapes, context.record(overall(context, shapes, pooled, seeded, exported))];
    } finally {
      await context.processes.stop(server);
    }
  },
};

/** One shape, every connection walking every path of it, after a warm-up; with the plan of each path. */
async function shapeRun(
  context: Context,
  server: ServerProcess,
  databaseUrl: string,
  secret: string,
  shape: ListShape,
  pooled: number[],
): Promise<RunResult> {
  const requests = Array.from({ length: LIST_CONNECTIONS * shape.paths.length }, (_, i): Request => ({
    method: 'GET',
    path: shape.paths[i % shape.paths.length] ?? '/',
    headers: { authorization: `Bearer ${secret}` },
  }));
  const variant: Variant = {
    scenario: 'list',
    variant: 'service',
    label: `list · ${shape.label}`,
    url: server.url,
    connections: LIST_CONNECTIONS,
    requests: () => requests,
    serverPid: server.child.pid,
  };
  const waited = await listAnswers(server.url, secret);
  if (waited > 0) context.log(`list: waited ${waited} ms for the list's breaker that the shape before opened`);
  await measure({ ...variant, label: 'warm-up', amount: LIST_WARMUP }, LIST_SHAPE_SECONDS, 0);
  const run = await measure({ ...variant, amount: context.options.listRequests, latencySink: pooled }, LIST_SHAPE_SECONDS, 0);
  const plans: ListPlan[] = [];
  for (const path of shape.paths) {
    const plan = await explainPath(databaseUrl, path);
    if (plan !== null) plans.push(plan);
  }
  const recorded = context.record({ ...run, listShape: { paths: shape.paths, plans } });
  const slowest = slowestPlan(plans);
  if (slowest !== undefined) {
    const matched = slowest.matches === null ? '' : `, ${slowest.matches.toLocaleString('en-US')} rows match`;
    const ofPaths = plans.length > 1 ? ` (the slowest of its ${plans.length} paths: ${slowest.path})` : '';
    context.log(`  plan${ofPaths}: ${slowest.indexes.join(', ') || 'no index'}, ${slowest.executionMs} ms in Postgres${matched}`);
  }
  return recorded;
}

/** GET /links/export.csv of the whole workspace, once: its figures, or why it failed. */
async function exportOnce(
  context: Context,
  server: ServerProcess,
  secret: string,
): Promise<{ exported: ListExport | null; problem?: string }> {
  try {
    await listAnswers(server.url, secret);
    const exported = await exportAll(server.url, secret, server.child.pid);
    context.log(
      `list: GET /links/export.csv: ${exported.rows.toLocaleString('en-US')} rows in ${exported.seconds} s ` +
        `(${exported.rowsPerSecond.toLocaleString('en-US')} rows/s), first byte after ${exported.firstByteMs} ms`,
    );
    return { exported };
  } catch (err) {
    const problem = err instanceof Error ? err.message : String(err);
    context.log(`list: GET /links/export.csv failed: ${problem}`);
    return { exported: null, problem };
  }
}

/** The run over every shape: their latencies pooled, their time, statuses and CPU summed; with the list's own figures. */
function overall(
  context: Context,
  shapes: readonly RunResult[],
  pooled: readonly number[],
  seeded: SeededList,
  { exported, problem }: { exported: ListExport | null; problem?: string },
): RunResult {
  const worst = shapes.reduce((a, b) => (b.latency.p99 > a.latency.p99 ? b : a));
  const counted = shapes.reduce((sum, run) => sum + run.seconds, 0);
  const sum = (pick: (run: RunResult) => number) => shapes.reduce((total, run) => total + pick(run), 0);
  const statuses: Record<string, number> = {};
  for (const run of shapes) for (const [status, n] of Object.entries(run.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  const requests = sum((run) => run.requests);
  return {
    scenario: 'list',
    variant: 'service',
    label: 'list',
    generator: 'autocannon',
    connections: LIST_CONNECTIONS,
    offeredRate: null,
    seconds: Math.round(counted * 100) / 100,
    requests,
    rps: Math.round(requests / counted),
    latency: percentiles(pooled),
    statuses,
    errors: sum((run) => run.errors),
    cpu: {
      client: Math.round((sum((run) => run.cpu.client * run.seconds) / counted) * 100) / 100,
      server: shapes.some((run) => run.cpu.server === null)
        ? null
        : Math.round((sum((run) => (run.cpu.server ?? 0) * run.seconds) / counted) * 100) / 100,
    },
    list: {
      links: seeded.links,
      requestsPerShape: context.options.listRequests,
      connections: LIST_CONNECTIONS,
      worst: { label: worst.label, p99: worst.latency.p99 },
      seeding: seeded.seeding,
      export: exported,
      ...(problem === undefined ? {} : { exportProblem: problem }),
    },
  };
}

/** The list's run over every shape and its figures, or why there are none. */
function listFigures(runs: Judged): { run: RunResult; figures: ListFigures } | { problem: string } {
  const run = runs.find('list');
  const problem = run === undefined ? 'the list run did not happen' : (run.skipped ?? (run.requests === 0 ? 'no responses' : undefined));
  if (problem !== undefined) return { problem };
  return run?.list === undefined ? { problem: 'no list figures' } : { run, figures: run.list };
}

/**
 * The link list's p99 over every shape (with its worst shape). A request that failed (a 503 from
 * the statement timeout, or from the breaker that such timeouts opened; or no answer) missed the
 * goal: the run is judged, not set aside as invalid.
 */
function listLatency(runs: Judged): TargetResult {
  const found = listFigures(runs);
  const links = runs.find('list')?.list?.links;
  const name = `list p99 ≤ ${LIST_P99_GOAL_MS} ms${links === undefined ? '' : ` with ${links.toLocaleString('en-US')} links`}`;
  if ('problem' in found) return notApplicable(name, found.problem);
  const { run, figures } = found;
  const { p50, p99 } = run.latency;
  const failed = run.errors + Object.entries(run.statuses).reduce((sum, [status, n]) => sum + (status === '200' ? 0 : n), 0);
  return {
    name,
    value: `${p99} ms (p50 ${p50}, ${run.requests.toLocaleString('en-US')} requests)`,
    verdict: p99 <= LIST_P99_GOAL_MS && failed === 0 ? 'PASS' : 'MISS',
    detail:
      `worst shape: "${figures.worst.label}" p99 ${figures.worst.p99} ms` +
      (failed === 0 ? '' : `; ${failed.toLocaleString('en-US')} requests failed (${runs.invalid(run) ?? ''})`),
  };
}

/** The export's rate: shown, not judged. */
function listExport(runs: Judged): TargetResult {
  const name = 'list export.csv of the whole workspace';
  const found = listFigures(runs);
  if ('problem' in found) return notApplicable(name, found.problem);
  const exported = found.figures.export;
  if (exported === null) return notApplicable(name, found.figures.exportProblem ?? 'the export failed');
  return {
    name,
    value: `${exported.rowsPerSecond.toLocaleString('en-US')} rows/s`,
    verdict: 'INFO',
    detail: `${exported.rows.toLocaleString('en-US')} rows in ${exported.seconds} s, first byte after ${exported.firstByteMs} ms`,
  };
}
