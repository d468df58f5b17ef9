// wrk as the load generator of the redirect runs: autocannon, in this Node process, tops out
// near 73k req/s here, below what a strict fast path can answer on one core. Each run is one wrk
// process (`wrk -t1`, pinned to the generator's CPUs) with a Lua script that walks a list of
// prebuilt requests, the same list autocannon would send, and prints its figures as one JSON
// line from `done()`: there is no `response()` callback, which would make wrk parse and copy
// every response's headers into Lua, so statuses are counted as wrk counts them (2xx/3xx or not).
// Headers that every request of a list carries go on wrk's command line (-H); a list whose
// requests differ in their headers (the analytics scenario's clicks) has them on each line.

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request } from 'autocannon';
import { cpuSeconds, which } from './proc.ts';
import { parseWrkOutput, type WrkFigures } from './wrk-output.ts';

export interface Wrk {
  /** The command line up to wrk's own arguments: `taskset -c <cpus> wrk`, or `wrk`. */
  readonly command: readonly string[];
  readonly version: string;
  /** Where the script and the request lists are written. */
  readonly dir: string;
  readonly script: string;
}

// Requests are formatted once, in init(); request() only hands the next one out.
const SCRIPT = `-- written by load/wrk.ts
local reqs, n, i = {}, 0, 0

-- A line is a path, or a path and its own headers, each after a tab as "name: value".
function init(args)
  for line in io.lines(args[1]) do
    n = n + 1
    local tab = string.find(line, "\t", 1, true)
    if tab == nil then
      reqs[n] = wrk.format("GET", line)
    else
      local headers = {}
      for field in string.gmatch(string.sub(line, tab + 1), "[^\t]+") do
        local colon = string.find(field, ": ", 1, true)
        headers[string.sub(field, 1, colon - 1)] = string.sub(field, colon + 2)
      end
      reqs[n] = wrk.format("GET", string.sub(line, 1, tab - 1), headers)
    end
  end
  -- stderr is unbuffered (stdout, a pipe, is not): the suite starts its clock on this line.
  io.stderr:write("wrk-ready\\n")
end

function request()
  i = i + 1
  if i > n then i = 1 end
  return reqs[i]
end

function done(summary, latency, requests)
  local q = {}
  for p = 1, 99 do q[#q + 1] = p end
  for p = 991, 999 do q[#q + 1] = p / 10 end
  for p = 9991, 9999 do q[#q + 1] = p / 100 end
  local parts = {}
  for _, p in ipairs(q) do parts[#parts + 1] = string.format("[%g,%d]", p, latency:percentile(p)) end
  -- latency:percentile(100) answers 0 in wrk 4: the maximum is the 100th.
  parts[#parts + 1] = string.format("[100,%d]", latency.max)
  local e = summary.errors
  io.write(string.format(
    'wrk-json {"durationUs":%d,"requests":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latencyUs":{"mean":%.3f,"max":%d,"quantiles":[%s]}}\\n',
    summary.duration, summary.requests, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency.max, table.concat(parts, ",")))
end
`;

/** wrk on the PATH, set up to run on `cpus` (under taskset when there is one); null without wrk. */
export async function findWrk(dir: string, cpus: string | null): Promise<Wrk | null> {
  const wrk = which('wrk');
  if (wrk === null) return null;
  const taskset = cpus === null ? null : which('taskset');
  const script = join(dir, 'paths.lua');
  writeFileSync(script, SCRIPT);
  // `wrk -v` prints its version and usage, and exits 1.
  const out = await output(wrk, ['-v']);
  const version = /^wrk (\S+)/.exec(out)?.[1] ?? 'unknown version';
  return { command: taskset === null || cpus === null ? [wrk] : [taskset, '-c', cpus, wrk], version, dir, script };
}

export interface WrkRun {
  readonly figures: WrkFigures;
  /** CPU seconds of wrk and of the server (null: unknown) over `seconds`, from wrk's start to its stop. */
  readonly clientCpu: number;
  readonly serverCpu: number | null;
  readonly seconds: number;
}

interface PathsFile {
  readonly file: string;
  /** The headers every request of the list carries, as wrk's -H takes them; none when they differ (each line has its own). */
  readonly headers: readonly string[];
}

const listFiles = new WeakMap<readonly Request[], PathsFile>();
let lists = 0;

/**
 * The requests as a file of paths, once per list (a variant's list is the same every round). When
 * every request has the same headers, wrk sends them as its -H headers (a "Host" among them
 * instead of the URL's: wrk.format adds its own only when there is no "Host", spelt so); else each
 * line carries its request's own, after tabs.
 */
function pathsFile(wrk: Wrk, requests: readonly Request[], label: string): PathsFile {
  const known = listFiles.get(requests);
  if (known !== undefined) return known;
  const first = headerLines(requests[0]?.headers).join('\t');
  const same = requests.every((r) => headerLines(r.headers).join('\t') === first);
  const lines = requests.map((r) => {
    const fields = headerLines(r.headers);
    if ((r.method ?? 'GET') !== 'GET' || r.body !== undefined || r.path === undefined || fields.some((field) => /[\t\r\n]/.test(field)))
      throw new Error(`${label}: wrk sends GETs without a body, with headers on one line each, not ${JSON.stringify(r)}`);
    return same || fields.length === 0 ? r.path : `${r.path}\t${fields.join('\t')}`;
  });
  const file = join(wrk.dir, `paths-${lists++}.txt`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  const list = { file, headers: same ? headerLines(requests[0]?.headers) : [] };
  listFiles.set(requests, list);
  return list;
}

function headerLines(headers: Request['headers']): string[] {
  return Object.entries(headers ?? {}).map(([name, value]) => `${name}: ${String(value)}`);
}

/**
 * One wrk run of `ms` against `url`. wrk's -d takes whole seconds, so it is started for longer
 * and stopped with SIGINT (after which it reports as at the end of its time); the CPU of wrk and
 * of the server is read from /proc between the moment wrk says it is running and that signal.
 */
export async function runWrk(
  wrk: Wrk,
  run: { url: string; connections: number; requests: readonly Request[]; ms: number; serverPid: number | undefined; label: string },
): Promise<WrkRun> {
  const [command, ...prefix] = wrk.command;
  if (command === undefined) throw new Error('no wrk command');
  const { file, headers } = pathsFile(wrk, run.requests, run.label);
  const args = [
    ...prefix,
    '-t1',
    `-c${run.connections}`,
    `-d${Math.ceil(run.ms / 1000) + 30}s`,
    '--timeout',
    '10s',
    '--latency',
    ...headers.flatMap((header) => ['-H', header]),
    '-s',
    wrk.script,
    run.url,
    '--',
    file,
  ];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const running = Promise.withResolvers<void>();
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    // Written by init(), just before wrk starts its thread and opens the connections.
    if (stderr.includes('wrk-ready\n')) running.resolve();
  });
  const started = await Promise.race([running.promise.then(() => true), exited.then(() => false), sleep(15_000, false)]);
  if (!started) {
    child.kill('SIGKILL');
    throw new Error(`${run.label}: wrk did not start: ${stderr}${stdout}`);
  }
  const from = performance.now();
  const clientBefore = cpuSeconds(child.pid) ?? 0;
  const serverBefore = cpuSeconds(run.serverPid);
  await sleep(run.ms);
  const clientAfter = cpuSeconds(child.pid) ?? 0;
  const serverAfter = cpuSeconds(run.serverPid);
  const seconds = (performance.now() - from) / 1000;
  child.kill('SIGINT');
  const stuck = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const exitCode = await exited;
  clearTimeout(stuck);
  if (exitCode !== 0) throw new Error(`${run.label}: wrk exited with ${exitCode}: ${stderr}${stdout}`);
  return {
    figures: parseWrkOutput(stdout),
    clientCpu: clientAfter - clientBefore,
    serverCpu: serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore,
    seconds,
  };
}

async function output(command: string, args: readonly string[]): Promise<string> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((resolve) => child.once('close', resolve));
  return out;
}
