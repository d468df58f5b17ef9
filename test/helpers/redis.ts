// Redis for tests: keys under a random prefix on the shared server (never flushed, never
// reconfigured), a MONITOR log of what the code under test actually sent, and private
// redis-server processes (single or cluster) that a test may pause, kill and restart.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { decodeInvalidation, invalidationChannel } from '../../src/redis/entries.ts';
import { watchChild } from './server-child.ts';

export const SHARED_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The Redis part of /readyz. */
export interface RedisReadiness {
  redis: 'ready' | 'down' | 'bypassed';
  invalidations: 'live' | 'deaf';
  unsentInvalidations: number;
}

/** /readyz of an app in this process, or of a server at a base URL: its status, and the Redis tier's. */
export async function redisReadiness(target: FastifyInstance | string): Promise<{ status: number; redis: RedisReadiness }> {
  if (typeof target === 'string') {
    const res = await fetch(`${target}/readyz`, { signal: AbortSignal.timeout(5000) });
    return { status: res.status, redis: ((await res.json()) as { redis: RedisReadiness }).redis };
  }
  const res = await target.inject({ url: '/readyz' });
  return { status: res.statusCode, redis: res.json<{ redis: RedisReadiness }>().redis };
}

/** A probe for until(): the tier is in use and invalidations are heard (a new instance starts deaf). */
export function redisInUse(target: FastifyInstance | string): () => Promise<boolean> {
  return async () => {
    const { redis } = await redisReadiness(target);
    return redis.redis === 'ready' && redis.invalidations === 'live';
  };
}

/** One message heard on an invalidation channel, decoded, and when (performance.now()) it arrived. */
export interface HeardInvalidation {
  readonly instance: string;
  readonly seq: number;
  /** Empty for a heartbeat. */
  readonly codes: string[];
  readonly at: number;
}

/**
 * A subscriber of the invalidation channel under `prefix`, as every instance is: `heard` fills with
 * what the instances publish (heartbeats included), for a test to wait on a delivery instead of a
 * guess. Resolves once subscribed.
 */
export async function listenToInvalidations(url: string, prefix: string): Promise<{ heard: HeardInvalidation[]; stop(): void }> {
  const heard: HeardInvalidation[] = [];
  const subscriber = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  subscriber.on('error', () => {});
  const channel = invalidationChannel(prefix);
  subscriber.on('message', (from: string, message: string) => {
    if (from === channel) heard.push({ ...decodeInvalidation(message), at: performance.now() });
  });
  try {
    await subscriber.connect();
    await subscriber.subscribe(channel);
  } catch (error) {
    subscriber.disconnect();
    throw error;
  }
  return { heard, stop: () => subscriber.disconnect() };
}

/** `test:<label>:<8 hex>:` — every key a test file touches on the shared Redis lives under one. */
export function randomPrefix(label: string): string {
  return `test:${label}:${randomBytes(4).toString('hex')}:`;
}

/**
 * Runs `fn` with a connection of its own to `url`: quit afterwards, or dropped if anything failed
 * (QUIT on a broken or paused server would wait forever). No reconnects and no offline queue, so a
 * dead server fails fast instead of retrying behind the test's back.
 */
export async function withRedis<T>(url: string, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  // Failures reach the caller through the rejected command; without a listener ioredis would
  // also print them as "Unhandled error event".
  redis.on('error', () => {});
  let result: T;
  try {
    await redis.connect();
    result = await fn(redis);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  await redis.quit();
  return result;
}

/** A SCAN MATCH pattern that matches `prefix` literally, whatever characters it holds. */
function globEscape(prefix: string): string {
  return prefix.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * Every key under `prefix`, a SCAN page at a time (never KEYS), each page handed to `page` before
 * the next is asked for. SCAN may return a key twice.
 */
export async function scanKeys(redis: Redis, prefix: string, page: (keys: string[]) => Promise<void>): Promise<void> {
  const pattern = `${globEscape(prefix)}*`;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await page(keys);
  } while (cursor !== '0');
}

/** Deletes every key under `prefix` (SCAN + UNLINK, never KEYS or FLUSH*); returns how many. */
export async function deleteKeys(url: string, prefix: string): Promise<number> {
  return withRedis(url, async (redis) => {
    let deleted = 0;
    // One UNLINK per page keeps each command bounded; UNLINK counts only the keys it removed.
    await scanKeys(redis, prefix, async (keys) => {
      deleted += await redis.unlink(...keys);
    });
    return deleted;
  });
}

export interface LoggedCommand {
  /** Lowercase, whatever case the client sent. */
  readonly name: string;
  readonly args: string[];
}

const ESCAPES: Record<string, number> = { n: 10, r: 13, t: 9, a: 7, b: 8, '\\': 92, '"': 34 };

/**
 * MONITOR prints each argument quoted and escaped (`\\`, `\n`, `\xc3\xa9`...); ioredis only
 * undoes `\"`. Decodes the rest, so `é` reads as `é` and not as `\xc3\xa9`.
 */
function unescapeMonitorArg(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? '';
    const next = text[i + 1] ?? '';
    const escaped = ESCAPES[next];
    if (char === '\\' && next === 'x' && /^[0-9a-f]{2}$/i.test(text.slice(i + 2, i + 4))) {
      bytes.push(Number.parseInt(text.slice(i + 2, i + 4), 16));
      i += 3;
    } else if (char === '\\' && escaped !== undefined) {
      bytes.push(escaped);
      i += 1;
    } else {
      bytes.push(...Buffer.from(char));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * The arguments of one MONITOR line: `1796049005.589 [0 127.0.0.1:57326] "mget" "a" "b"`, each
 * argument quoted, with `\"` and the escapes above inside.
 */
function parseMonitorLine(line: string): string[] {
  const args: string[] = [];
  const quoted = /"((?:[^"\\]|\\.)*)"/g;
  const start = line.indexOf(']');
  if (start === -1) return args;
  quoted.lastIndex = start;
  for (let match = quoted.exec(line); match !== null; match = quoted.exec(line)) {
    args.push(unescapeMonitorArg(match[1] ?? ''));
  }
  return args;
}

/**
 * What a MONITOR connection saw of the commands that touch one prefix. It reads the raw socket
 * (RESP2: one `+…` line per command): ioredis's own monitor() mistakes a line for a reply when
 * the server is busy ("Command queue state error"), as it is while other test files run.
 */
export class CommandLog {
  readonly #socket: net.Socket;
  readonly #url: string;
  readonly #prefix: string;
  readonly #log: LoggedCommand[] = [];
  #pending = '';

  constructor(socket: net.Socket, url: string, prefix: string) {
    this.#socket = socket;
    this.#url = url;
    this.#prefix = prefix;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      const lines = (this.#pending + chunk).split('\r\n');
      this.#pending = lines.pop() ?? '';
      for (const line of lines) this.#line(line);
    });
  }

  #line(line: string): void {
    if (!line.startsWith('+') || line === '+OK') return;
    // What a script runs is part of its EVAL, not a command a client sent: `[0 lua]`.
    if (line.slice(0, line.indexOf(']') + 1).endsWith(' lua]')) return;
    // Arguments may hold any bytes; latin1 keeps each byte one character until unescaped.
    const [name, ...args] = parseMonitorLine(line);
    if (name === undefined || !this.#concerns(name.toLowerCase(), args)) return;
    this.#log.push({ name: name.toLowerCase(), args });
  }

  #concerns(name: string, args: string[]): boolean {
    if (args.some((arg) => arg.includes(this.#prefix))) return true;
    const channel = args[0];
    return (name === 'publish' || name === 'subscribe') && channel !== undefined && channel.startsWith(this.#prefix);
  }

  /** The commands recorded so far, oldest first; only those called `name` when given. */
  commands(name?: string): LoggedCommand[] {
    const wanted = name?.toLowerCase();
    return this.#log.filter((command) => wanted === undefined || command.name === wanted);
  }

  clear(): void {
    this.#log.length = 0;
  }

  /**
   * MONITOR lines trail the replies the client already has. Sends a marker command and waits
   * until the log shows it: the server ran every command answered before it, in order, so their
   * lines are in. The marker is not kept in the log.
   */
  async settle(): Promise<void> {
    const marker = `${this.#prefix}__monitor_marker:${randomBytes(4).toString('hex')}`;
    const seen = () => this.#log.findIndex((command) => command.name === 'exists' && command.args[0] === marker);
    await withRedis(this.#url, async (redis) => {
      for (let waited = 0; waited < 5000; waited += 10) {
        if (waited % 500 === 0) await redis.exists(marker);
        await sleep(10);
        if (seen() !== -1) return;
      }
      throw new Error(`MONITOR on ${this.#url} never saw the marker command`);
    });
    this.#log.splice(seen(), 1);
  }

  stop(): void {
    this.#socket.destroy();
  }
}

/**
 * Starts logging the commands that mention `prefix`. Resolves only once the log provably sees
 * commands from other connections: a marker command is sent until it shows up, then cleared.
 */
export async function startMonitor(url: string, prefix: string): Promise<CommandLog> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: port === '' ? 6379 : Number(port) });
  // Errors after MONITOR is up (the server going away) must not crash the test process.
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write('MONITOR\r\n');
  const log = new CommandLog(socket, url, prefix);
  try {
    // Until MONITOR has started, the marker may go unseen: settle() sends it again.
    await log.settle();
  } catch (error) {
    log.stop();
    throw error;
  }
  log.clear();
  return log;
}

// A failed assertion must not leave a redis-server (or its temp dir) behind after the test file.
const running = new Map<ChildProcess, string>();
process.on('exit', () => {
  for (const [child, dir] of running) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Ports for the servers tests start: below Linux's ephemeral range (32768-60999), so that no
 * outgoing connection of another test can take one between our check and the server's bind, as a
 * port the OS picked from that range could be (seen in CI: a private Redis "Address already in use").
 */
const SPARE_PORTS = { from: 20_000, to: 32_767 };

/** A port nothing listens on right now, from SPARE_PORTS, at random: tests running at once rarely pick the same. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const port = SPARE_PORTS.from + Math.floor(Math.random() * (SPARE_PORTS.to - SPARE_PORTS.from + 1));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${SPARE_PORTS.from}-${SPARE_PORTS.to} after 100 tries`);
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** One raw PING; true only on +PONG (a server still loading answers -LOADING). */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk: Buffer) => done(chunk.toString().startsWith('+PONG')));
  });
}

/** Parses INFO output (`# Section` headers, `key:value` lines) into key → value. */
function parseInfo(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (line.startsWith('#') || colon < 0) continue;
    result[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return result;
}

/**
 * A redis-server of the test's own, on a free port with a throwaway directory and no persistence:
 * something a test may reconfigure, pause, kill and restart without disturbing anyone else.
 */
export class PrivateRedis {
  readonly port: number;
  readonly url: string;
  readonly #args: string[];
  readonly #dir: string;
  #child: ChildProcess | null = null;
  #exited: Promise<void> = Promise.resolve();
  #stopped = false;

  private constructor(port: number, dir: string, extraArgs: string[]) {
    this.port = port;
    this.url = `redis://127.0.0.1:${port}`;
    this.#dir = dir;
    this.#args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--protected-mode',
      'no',
      '--daemonize',
      'no',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--loglevel',
      'warning',
      ...extraArgs,
    ];
  }

  /** On a spare port (another, if two tests happened to take the same one at once), or on `port`. */
  static async start(options: { port?: number; extraArgs?: string[] } = {}): Promise<PrivateRedis> {
    for (let tries = 1; ; tries++) {
      const redis = new PrivateRedis(
        options.port ?? (await freePort()),
        mkdtempSync(join(tmpdir(), 'shortener-redis-')),
        options.extraArgs ?? [],
      );
      try {
        await redis.#spawn();
        return redis;
      } catch (error) {
        await redis.stop();
        const taken = error instanceof Error && error.message.includes('Address already in use');
        if (!taken || options.port !== undefined || tries === 3) throw error;
      }
    }
  }

  /** The current process's pid (it changes on restart). */
  get pid(): number {
    const pid = this.#child?.pid;
    if (pid === undefined) throw new Error('redis-server is not running');
    return pid;
  }

  /** Spawns redis-server and waits (up to 10 s) until it answers PING. */
  async #spawn(): Promise<void> {
    const child = spawn('redis-server', this.#args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    running.set(child, this.#dir);
    const watched = watchChild(child, () => running.delete(child));
    this.#exited = watched.exited;
    for (let waited = 0; waited < 10_000; waited += 50) {
      if (watched.hasExited()) throw new Error(`redis-server on port ${this.port} exited at start: ${watched.output()}`);
      if (await ping(this.port)) return;
      await sleep(50);
    }
    throw new Error(`redis-server on port ${this.port} did not answer PING in 10 s: ${watched.output()}`);
  }

  /** Freezes the process: connections stay open, nothing is answered. */
  pause(): void {
    this.#child?.kill('SIGSTOP');
  }

  resume(): void {
    this.#child?.kill('SIGCONT');
  }

  /** A crash: SIGKILL, then waits until the process is gone. The data goes with it. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (child === null) return;
    this.#child = null;
    child.ref(); // so that the event loop stays up until the exit is seen
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await this.#exited;
  }

  /** Starts a fresh, empty server on the same port (killing the current one first if need be). */
  async restart(): Promise<void> {
    if (this.#stopped) throw new Error('restart() after stop()');
    await this.kill();
    await this.#spawn();
  }

  /** Kills the server (resuming it first, in case it is paused) and removes its directory. Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.resume();
    await this.kill();
    await rm(this.#dir, { recursive: true, force: true });
  }

  /** `INFO <section>` as key → value. */
  async info(section: string): Promise<Record<string, string>> {
    return parseInfo(await withRedis(this.url, (redis) => redis.info(section)));
  }

  /** How many times `command` has run since start (0 if never): `cmdstat_<command>:calls=N,...`. */
  async commandCalls(command: string): Promise<number> {
    const stats = await this.info('commandstats');
    const line = stats[`cmdstat_${command.toLowerCase()}`];
    return Number(/(?:^|,)calls=(\d+)/.exec(line ?? '')?.[1] ?? 0);
  }
}

const execFileAsync = promisify(execFile);

/**
 * Private redis-servers joined into a cluster: masters only by default (no failover), or with
 * `replicas` replicas of each master, which take over a master that dies.
 */
export class PrivateRedisCluster {
  readonly nodes: PrivateRedis[];
  #stopped = false;

  private constructor(nodes: PrivateRedis[]) {
    this.nodes = nodes;
  }

  get urls(): string[] {
    return this.nodes.map((node) => node.url);
  }

  static async start(masters = 3, replicas = 0): Promise<PrivateRedisCluster> {
    const cluster = new PrivateRedisCluster([]);
    try {
      for (let i = 0; i < masters * (1 + replicas); i++) {
        // The cluster bus defaults to port + 10000, which overflows 65535 for most ephemeral
        // ports (32768-60999 on Linux): give it a free port of its own instead.
        const busPort = await freePort();
        cluster.nodes.push(
          await PrivateRedis.start({
            extraArgs: [
              '--cluster-enabled',
              'yes',
              '--cluster-config-file',
              'nodes.conf',
              '--cluster-node-timeout',
              '2000',
              '--cluster-port',
              String(busPort),
            ],
          }),
        );
      }
      await execFileAsync(
        'redis-cli',
        [
          '--cluster',
          'create',
          ...cluster.nodes.map((node) => `127.0.0.1:${node.port}`),
          '--cluster-replicas',
          String(replicas),
          '--cluster-yes',
        ],
        { timeout: 30_000 },
      );
      await cluster.#waitUntilOk(20_000);
      // A replica that has not finished its first sync would never take over a master.
      if (replicas > 0) await cluster.#waitUntilSynced(20_000);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** `redis-cli --cluster create` returns before every node agrees the cluster is up. */
  async #waitUntilOk(timeoutMs: number, nodes: readonly PrivateRedis[] = this.nodes): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let states: string[] = [];
    while (Date.now() < deadline) {
      states = await Promise.all(
        nodes.map((node) =>
          withRedis(node.url, async (redis) => parseInfo(await redis.cluster('INFO')).cluster_state ?? 'unknown').catch(() => 'no answer'),
        ),
      );
      if (states.every((state) => state === 'ok')) return;
      await sleep(100);
    }
    throw new Error(`cluster not ok after ${timeoutMs} ms: ${states.join(', ')}`);
  }

  /** Until every replica says its link to its master is up (INFO replication). */
  async #waitUntilSynced(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let links: string[] = [];
    while (Date.now() < deadline) {
      links = await Promise.all(
        this.nodes.map((node) =>
          withRedis(node.url, async (redis) => {
            const info = parseInfo(await redis.info('replication'));
            return info.role === 'slave' ? (info.master_link_status ?? 'unknown') : 'master';
          }),
        ),
      );
      if (links.every((link) => link === 'up' || link === 'master')) return;
      await sleep(100);
    }
    throw new Error(`replicas not in sync after ${timeoutMs} ms: ${links.join(', ')}`);
  }

  /** Each node's role as it says itself (`ROLE`): 'master' or 'slave'. */
  async roles(): Promise<('master' | 'slave' | 'down')[]> {
    return Promise.all(
      this.nodes.map((node) =>
        withRedis(node.url, async (redis) => ((await redis.call('ROLE')) as [string])[0] as 'master' | 'slave').catch(
          () => 'down' as const,
        ),
      ),
    );
  }

  /**
   * SIGKILL of a master that has a replica; resolves with it once a replica has taken over and
   * every other node says the cluster is ok again (about the node timeout, 2 s, and an election).
   */
  async killMaster(timeoutMs = 30_000): Promise<PrivateRedis> {
    const roles = await this.roles();
    const masters = roles.filter((role) => role === 'master').length;
    const victim = this.nodes[roles.indexOf('master')];
    if (victim === undefined || !roles.includes('slave')) throw new Error(`no master with a replica to kill: ${roles.join(', ')}`);
    await victim.kill();
    // Until the node timeout the others still say ok: wait for a replica to say it is a master.
    const deadline = Date.now() + timeoutMs;
    while ((await this.roles()).filter((role) => role === 'master').length < masters) {
      if (Date.now() > deadline) throw new Error(`no replica took over in ${timeoutMs} ms: ${(await this.roles()).join(', ')}`);
      await sleep(100);
    }
    await this.#waitUntilOk(
      timeoutMs,
      this.nodes.filter((node) => node !== victim),
    );
    return victim;
  }

  /** Starts a killed node again: empty, it rejoins from its nodes.conf, a replica of who took over. */
  async rejoin(node: PrivateRedis, timeoutMs = 30_000): Promise<void> {
    await node.restart();
    await this.#waitUntilOk(timeoutMs);
  }

  /** The url of the master that serves `slot`. */
  async masterOfSlot(slot: number): Promise<string> {
    const url = this.urls[0];
    if (url === undefined) throw new Error('cluster has no nodes');
    // Each range: [start, end, [host, port, id, ...] of its master, ...its replicas].
    const ranges = await withRedis(url, (redis) => redis.cluster('SLOTS'));
    for (const [start, end, master] of ranges) {
      if (master !== undefined && slot >= start && slot <= end) return `redis://${master[0]}:${master[1]}`;
    }
    throw new Error(`no master serves slot ${slot}`);
  }

  /** Stops every node. Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await Promise.all(this.nodes.map((node) => node.stop()));
  }
}
