// HAProxy (Debian's package) in front of the fleet, on the project's own deploy/haproxy.cfg: the
// fleet runs the shipped file with only what differs on one machine without Docker changed (the
// addresses, no Docker DNS), plus a stats socket and a header naming the instance that answered,
// both for the test's eyes. A change of the shipped file that the rewrite no longer recognises
// stops the run instead of testing something else.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { watchChild } from '../../test/helpers/server-child.ts';
import { until } from '../../test/helpers/wait.ts';

export const SHIPPED_CONFIG = new URL('../../deploy/haproxy.cfg', import.meta.url).pathname;

/** The header the fleet's HAProxy adds to every answer: the name of the server that gave it. */
export const SERVED_BY = 'x-fleet-served-by';

/** The shipped file's backends: the ready instances, and the same ones alive (its fallback). */
const BACKENDS = 2;

export interface Backend {
  readonly name: string;
  readonly port: number;
}

/** Replaces the `count` matches of `pattern` in `text`, or throws naming what the shipped file lacks. */
function replaceAll(text: string, pattern: RegExp, replacement: string, what: string, count = 1): string {
  const global = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`);
  const matches = text.match(global) ?? [];
  if (matches.length !== count) throw new Error(`deploy/haproxy.cfg: expected ${count} ${what}, found ${matches.length}`);
  return text.replace(global, replacement);
}

/**
 * The shipped configuration, rewritten for loopback: the frontend binds `port` on 127.0.0.1, each
 * backend's servers are `backends`, Docker's resolvers are gone (nothing to resolve), and the global
 * section gains an admin socket at `socket`. Health checks, retries, timeouts and balancing stay as
 * shipped.
 */
export function fleetConfig(shipped: string, options: { port: number; backends: readonly Backend[]; socket: string }): string {
  let config = shipped;
  config = replaceAll(config, /^global\n/m, `global\n  stats socket ${options.socket} level admin\n`, '"global" section');
  config = replaceAll(config, /^resolvers docker\n(?:[ \t]+.*\n)+/m, '', '"resolvers docker" section');
  config = replaceAll(config, / resolvers docker init-addr [^\n]*/, '', '"resolvers docker" on default-server lines', BACKENDS);
  config = replaceAll(config, /^([ \t]+)bind :\d+$/m, `$1bind 127.0.0.1:${options.port}`, '"bind :<port>" line');
  const servers = options.backends.map((b) => `  server ${b.name} 127.0.0.1:${b.port}`).join('\n');
  const block = `${servers}\n  http-response set-header ${SERVED_BY} %s\n`;
  return replaceAll(config, /^(?:[ \t]+server [^\n]*\n?)+/m, block, 'blocks of "server" lines (one a backend)', BACKENDS);
}

/** One server's state as HAProxy's `show stat` says it: 'UP', 'DOWN', 'UP 1/2', 'MAINT', … */
export type ServerStates = Record<string, string>;

// A failed run must not leave HAProxy behind after its process ends.
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export class Haproxy {
  readonly url: string;
  readonly #dir: string;
  readonly #socket: string;
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;

  private constructor(port: number, dir: string, socket: string, child: ChildProcess, exited: Promise<void>) {
    this.url = `http://127.0.0.1:${port}`;
    this.#dir = dir;
    this.#socket = socket;
    this.#child = child;
    this.#exited = exited;
  }

  /** Checks the rewritten file (`haproxy -c`), starts HAProxy in the foreground and waits for its socket. */
  static async start(port: number, backends: readonly Backend[]): Promise<Haproxy> {
    const dir = mkdtempSync(join(tmpdir(), 'shortener-haproxy-'));
    const socket = join(dir, 'admin.sock');
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(file, fleetConfig(readFileSync(SHIPPED_CONFIG, 'utf8'), { port, backends, socket }));
    const check = spawn('haproxy', ['-c', '-q', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    const checked = watchChild(check, () => {});
    await checked.exited;
    if (check.exitCode !== 0) throw new Error(`haproxy -c refused the fleet's configuration: ${checked.output()}`);
    // -db: foreground; its request log (stdout) is not read, errors are.
    const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    running.add(child);
    const watched = watchChild(child, () => running.delete(child));
    const haproxy = new Haproxy(port, dir, socket, child, watched.exited);
    for (let waited = 0; waited < 10_000; waited += 50) {
      if (watched.hasExited()) throw new Error(`haproxy exited at start: ${watched.output()}`);
      if ((await haproxy.command('show info').catch(() => '')).includes('Name: HAProxy')) return haproxy;
      await sleep(50);
    }
    await haproxy.stop();
    throw new Error(`haproxy's socket did not answer in 10 s: ${watched.output()}`);
  }

  /** One command on the admin socket, and its whole answer. */
  command(line: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(this.#socket);
      let answer = '';
      socket.setTimeout(2000, () => socket.destroy(new Error(`haproxy's socket did not answer "${line}"`)));
      socket.on('connect', () => socket.end(`${line}\n`));
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  }

  /** The state of each server of the backend, by name. */
  async servers(): Promise<ServerStates> {
    const csv = await this.command('show stat');
    const [header = '', ...rows] = csv.split('\n');
    const columns = header.replace(/^# /, '').split(',');
    const [px, sv, status] = ['pxname', 'svname', 'status'].map((name) => columns.indexOf(name));
    const states: ServerStates = {};
    for (const row of rows) {
      const cells = row.split(',');
      const server = cells[sv ?? -1];
      if (cells[px ?? -1] === 'shortener' && server !== undefined && server !== 'BACKEND' && server !== 'FRONTEND') {
        states[server] = cells[status ?? -1] ?? '';
      }
    }
    return states;
  }

  /** Waits until HAProxy says `server` is `state` ('UP' or 'DOWN'); how long it took, in ms. */
  async until(server: string, state: 'UP' | 'DOWN', timeoutMs = 30_000): Promise<number> {
    const started = performance.now();
    await until(`haproxy: ${server} ${state}`, async () => (await this.servers())[server] === state, timeoutMs);
    return performance.now() - started;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGTERM');
    await this.#exited;
    await rm(this.#dir, { recursive: true, force: true });
  }
}
