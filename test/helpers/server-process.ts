// The real service as a child process (node src/process/main.ts), for tests that signal or kill it.

import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Every log line so far, parsed. */
  readonly logs: Record<string, unknown>[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const SERVER = new URL('../../src/process/main.ts', import.meta.url).pathname;

/**
 * NODE_COMPILE_CACHE, when `npm test` sets it, for a child given an environment of its own: each
 * start of the service then reuses the type-stripped and compiled modules of the ones before it,
 * instead of stripping and compiling the whole of src/ again (about half a second of a core).
 */
export function compileCacheEnv(): Record<string, string> {
  const directory = process.env.NODE_COMPILE_CACHE;
  return directory === undefined ? {} : { NODE_COMPILE_CACHE: directory };
}

// A failed assertion must not leave a server running after its test file ends.
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * Starts `script` (the service by default) on a free port and waits for its "listening" log line;
 * `prefix` runs it under another command (`['taskset', '-c', '1']`), `nodeFlags` are Node's.
 */
export async function startServer(
  env: Record<string, string>,
  timeoutMs = 30_000,
  script: string = SERVER,
  prefix: readonly string[] = [],
  nodeFlags: readonly string[] = [],
): Promise<ServerProcess> {
  // Every create of a test comes from one address: no create limits unless the test sets them;
  // plain links are created without a key, as startApp's tests create them. A CODE_SECRET of its
  // own: the service refuses the development default when DATABASE_URL is set.
  const defaults = {
    PATH: process.env.PATH ?? '',
    ...compileCacheEnv(),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    RATE_LIMIT_ENABLED: 'false',
    CODE_SECRET: 'server-process-test-code-secret',
    CREATE_REQUIRES_API_KEY: 'false',
  };
  return startListening([...prefix, process.execPath, ...nodeFlags, script], { ...defaults, ...env }, timeoutMs, 'server');
}

/**
 * Runs `command` and waits until it logs, as JSON lines, Fastify's "Server listening at" (the
 * service and load/go-fasthttp both do); `label` names it in the errors.
 */
export async function startListening(
  command: readonly string[],
  env: Record<string, string>,
  timeoutMs: number,
  label: string,
): Promise<ServerProcess> {
  const [file = '', ...args] = command;
  const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const logs: Record<string, unknown>[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Killed here: no test has it to clean up, and a child left running (its pipes open) keeps the
      // test file's process from ever ending (a cluster that started too slowly on a busy machine hung
      // its file until killed by hand). A cluster's workers exit with their primary (IPC disconnect).
      child.kill('SIGKILL');
      reject(new Error(`${label} did not start in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    createInterface({ input: child.stdout }).on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      logs.push(entry);
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(String(entry.msg));
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${code} before listening: ${stderr}${logs.map((entry) => JSON.stringify(entry)).join('\n')}`));
    });
  });
  return { child, url, logs, exited };
}

export async function postLink(base: string, body: Record<string, unknown>): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${base}/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { code?: string };
  return json.code === undefined ? { status: res.status } : { status: res.status, code: json.code };
}
