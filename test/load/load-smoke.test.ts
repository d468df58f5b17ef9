// The load suite must not rot: its scenarios run for a second against real servers, answer what
// they should, and the results and the report are written. `npm test` runs one scenario of each
// kind of machinery (the redirect rounds with wrk, autocannon's creates, the list's seeding, the
// storage figures with a private Redis, the start-up times, the memory probe): SHORT, about 45 s. `npm run test:load`
// runs every scenario (LOAD_SMOKE=all, about two minutes). No figure is judged here: CI machines
// are shared and noisy, and the targets are goals, not assertions. It passes with and without wrk
// and Go on the PATH: without wrk, autocannon drives every run; without Go (or Debian's fasthttp
// source), the go run is skipped and says what to install. The list scenario seeds a small
// workspace (5,000 links) and asks each shape of the list a few times.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { which } from '../../load/proc.ts';
import { choose } from '../../load/plan.ts';
import { invalidRun, SCENARIOS } from '../../load/scenarios/index.ts';
import type { SuiteResult } from '../../load/types.ts';
import { ADMIN_URL } from '../helpers/db.ts';
import { deleteKeys, SHARED_REDIS_URL } from '../helpers/redis.ts';
import { compileCacheEnv } from '../helpers/server-process.ts';

const RUN = new URL('../../load/run.ts', import.meta.url).pathname;

/** The scenarios of `npm test`'s smoke (and those they need); every scenario with LOAD_SMOKE=all. */
const SHORT = ['baseline', 'hot', 'not-found', 'create', 'list', 'storage', 'startup', 'memory'];
const ALL = process.env.LOAD_SMOKE === 'all';
const CHOSEN = new Set(
  ALL ? SCENARIOS.map((scenario) => scenario.name) : choose(SCENARIOS, SHORT, { sharedDatabase: true }).map((scenario) => scenario.name),
);

/** Runs that stand for their scenario, by label. */
const LABELS: Record<string, string> = {
  'create 400': 'create',
  'create 400 · one INSERT per request': 'create',
  'postgres · one SELECT per request': 'postgres',
  latency: 'latency',
  'latency · FAST_PATH=false': 'latency',
  'hot-slow': 'hot-slow',
  cluster: 'cluster',
  redis: 'redis',
  'redis · one GET per request': 'redis',
  'redis · auto-pipelining': 'redis',
  metrics: 'metrics',
  'metrics · off': 'metrics',
  dashboard: 'dashboard',
  'dashboard · off': 'dashboard',
  rules: 'rules',
  'rules · plain': 'rules',
  'starts · service': 'starts',
  'starts · baseline': 'starts',
  'startup · embedded': 'startup',
  'startup · postgres': 'startup',
};

/** The redirect runs, driven by wrk exactly when it is installed, by label. */
const WRK_RUNS: Record<string, string> = {
  ceiling: 'ceiling',
  baseline: 'baseline',
  hot: 'hot',
  'hot-domain': 'hot-domain',
  'hot-slow': 'hot-slow',
  cluster: 'cluster',
  'not-found': 'not-found',
  dashboard: 'dashboard',
  'dashboard · off': 'dashboard',
  rules: 'rules',
};

// All of it starts about fifteen servers one after another: two to three minutes on two busy
// cores, beyond the default timeout of `npm test`.
const TIMEOUT_MS = 300_000;

test(
  `npm run load: ${ALL ? 'every scenario' : `a scenario of each kind (${SHORT.join(', ')})`} runs, answers as it should, and leaves a JSON result and an HTML report`,
  { timeout: TIMEOUT_MS },
  async (t) => {
    const out = await mkdtemp(join(tmpdir(), 'load-smoke-'));
    t.after(() => rm(out, { recursive: true, force: true }));
    const args = ['--seconds', '1', '--rounds', '1', '--links', '300', '--connections', '20', '--memory-links', '20000'];
    args.push('--list-links', '5000', '--list-requests', '20', '--starts', '2', '--out', out);
    if (!ALL) args.push('--scenario', SHORT.join(','));
    const child = spawn(process.execPath, [RUN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...compileCacheEnv(), DATABASE_URL: ADMIN_URL, REDIS_URL: SHARED_REDIS_URL },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, output);

    const files = await readdir(out);
    const json = files.find((f) => f.endsWith('.json'));
    const html = files.find((f) => f.endsWith('.html'));
    assert.ok(json !== undefined && html !== undefined, `results written: ${files.join(', ')}`);
    const result = JSON.parse(await readFile(join(out, json), 'utf8')) as SuiteResult;

    assert.deepEqual([...new Set(result.runs.map((run) => run.scenario))].sort(), [...CHOSEN].sort());
    for (const run of result.runs) {
      if (run.scenario === 'memory') {
        assert.equal(run.memory?.links, 20_000);
        assert.ok((run.memory?.rssMb ?? 0) > 0);
      } else if (run.scenario === 'storage') {
        // Sized right after seeding: exactly the seeded links, each clicked once, each in Redis with a TTL.
        const { postgres, redis } = run.storage ?? assert.fail('no storage figures');
        assert.equal(postgres.links, 300);
        assert.equal(postgres.urlBytes, 80);
        assert.equal(postgres.clickRows, 300);
        // A row of link_totals per link, apart from links; the clicks counted there, not in links.
        assert.equal(postgres.totals.rows, 300);
        assert.equal(postgres.clickedTotals.rows, 300);
        assert.equal(postgres.allBytesPerLink, postgres.bytesPerLink + postgres.totals.bytesPerLink);
        assert.ok('links_pkey' in postgres.indexBytesPerLinkByName, JSON.stringify(postgres.indexBytesPerLinkByName));
        for (const bytes of [
          postgres.bytesPerLink,
          postgres.heapBytesPerLink,
          postgres.indexBytesPerLink,
          postgres.clickBytesPerRow ?? 0,
          postgres.totals.heapBytesPerLink,
          postgres.totals.indexBytesPerLink,
          postgres.clickedTotals.bytesPerLink,
        ])
          assert.ok(bytes > 0, JSON.stringify(postgres));
        assert.equal(redis?.keys, 300);
        assert.equal(redis.keysWithTtl, 300);
        const own = redis.private ?? assert.fail('no private redis-server figures');
        for (const bytes of [redis.memoryUsagePerKey, own.bytesPerKey, own.ttlBytesPerKey, own.negativeBytesPerKey])
          assert.ok(bytes > 0, JSON.stringify(redis));
      } else if (run.scenario === 'starts') {
        // Two fresh starts of each server, each measured.
        const figures = run.starts?.perCpuSecond ?? assert.fail(`${run.label}: no figures`);
        assert.equal(figures.length, 2, run.label);
        assert.ok(
          figures.every((n) => n > 0),
          `${run.label}: ${figures.join(', ')}`,
        );
      } else if (run.scenario === 'startup') {
        // Each engine prepared and started from nothing, then restarted, once each (--rounds 1); every start timed until ready.
        const { prepareMs, firstMs, restartsMs } = run.startup ?? assert.fail(`${run.label}: no start-up figures`);
        assert.deepEqual([prepareMs.length, firstMs.length, restartsMs.length], [1, 1, 1], run.label);
        for (const ms of [...prepareMs, ...firstMs, ...restartsMs]) assert.ok(ms > 0 && ms < 60_000, `${run.label}: ${ms} ms`);
      } else if (run.scenario === 'go' && run.skipped !== undefined) {
        assert.match(run.skipped, /apt-get install golang-go golang-github-valyala-fasthttp-dev/);
      } else if (run.scenario === 'list' && run.skipped !== undefined) {
        assert.match(run.skipped, /needs DATABASE_URL/);
      } else {
        assert.equal(invalidRun(run), undefined, `${run.label}: ${JSON.stringify(run.statuses)}, ${run.errors} errors`);
        assert.ok(run.rps > 0 && run.latency.p99 > 0, run.label);
      }
    }
    if (CHOSEN.has('list')) {
      // The link list: each shape measured and its plans read; over all of them, the seeding, every
      // index of the migration built and timed, and the export of the whole workspace.
      const shapes = result.runs.filter((run) => run.listShape !== undefined);
      assert.ok(shapes.length >= 20, `list shapes: ${shapes.length}`);
      for (const shape of shapes) {
        assert.equal(shape.requests, 20, shape.label);
        assert.equal(shape.listShape?.plans.length, shape.listShape?.paths.length, shape.label);
      }
      const list = result.runs.find((run) => run.label === 'list')?.list ?? assert.fail('no list figures');
      assert.equal(list.links, 5000);
      assert.equal(list.export?.rows, 5000, list.exportProblem);
      const built = list.seeding.indexes.map((index) => index.name);
      for (const name of ['links_list_created', 'links_list_search', 'link_totals_by_clicks'])
        assert.ok(built.includes(name), built.join());
      for (const index of list.seeding.indexes) assert.ok(index.bytes > 0, index.name);
    }
    const labels = result.runs.map((run) => run.label);
    for (const [label, scenario] of Object.entries(LABELS)) if (CHOSEN.has(scenario)) assert.ok(labels.includes(label), label);
    // The redirect runs are driven by wrk exactly when it is installed, and the table says which.
    const wrk = which('wrk') !== null;
    for (const [label, scenario] of Object.entries(WRK_RUNS)) {
      if (CHOSEN.has(scenario)) assert.equal(result.runs.find((run) => run.label === label)?.generator, wrk ? 'wrk' : 'autocannon', label);
    }
    assert.match(output, wrk ? /load generator: wrk / : /wrk is not installed \(apt-get install wrk\)/);
    // Every target is judged, and printed.
    assert.equal(result.targets.length, 28);
    for (const target of result.targets) assert.match(output, new RegExp(`${target.verdict}\\s+${escape(target.name)}`));

    // The run's Redis keys are gone with it.
    const prefix = /key prefix (\S+),/.exec(result.settings.redis)?.[1];
    assert.ok(prefix !== undefined, result.settings.redis);
    assert.equal(await deleteKeys(SHARED_REDIS_URL, prefix), 0, 'keys left behind');

    const report = await readFile(join(out, html), 'utf8');
    assert.match(report, /^<!doctype html>/i);
    assert.ok((report.match(/<svg/g) ?? []).length >= 2, 'throughput and latency charts');
    assert.doesNotMatch(report, /<script|https?:\/\/(?!www\.w3\.org)/, 'self-contained: no scripts, nothing fetched');
  },
);

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
