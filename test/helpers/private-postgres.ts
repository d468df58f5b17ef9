// A Postgres server of the test's own (initdb into a temp folder, a spare port, 127.0.0.1 only):
// something a test may stop, restart, crash and freeze without touching the shared server on 5432.
// Postgres refuses to run as root, so under root initdb and postgres run as the postgres user.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { withClient, withDatabase } from './db.ts';
import { freePort } from './redis.ts';
import { watchChild } from './server-child.ts';

/** A program of the same PostgreSQL installation as the `postgres` on the PATH (pg_basebackup, ...). */
function serverProgram(name: string): string {
  const postgres = execFileSync('sh', ['-c', 'command -v postgres'], { encoding: 'utf8' }).trim();
  return join(dirname(realpathSync(postgres)), name);
}

/** The uid and gid to run Postgres as: the postgres user when we are root, else ourselves. */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Pids whose parent is `pid` (the postmaster's backends and helpers), read from /proc. */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name, which may hold spaces and parentheses: state, ppid, ...
      const [, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === pid) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** True while `pid` runs (a zombie, dead but not yet reaped, does not count). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function signal(pids: readonly number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // Already gone.
    }
  }
}

// A failed assertion must not leave a postgres (or its folder) behind after the test file: an
// immediate shutdown, waited for synchronously (an exit handler cannot await), then SIGKILL.
const running = new Map<ChildProcess, string>();
process.on('exit', () => {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (const [child, dir] of running) {
    const pid = child.pid;
    if (pid !== undefined) {
      const all = [pid, ...childrenOf(pid)];
      signal(all, 'SIGCONT');
      signal([pid], 'SIGQUIT');
      for (let waited = 0; waited < 3000 && all.some(alive); waited += 20) Atomics.wait(pause, 0, 0, 20);
      signal(all, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

export class PrivatePostgres {
  readonly port: number;
  /** The `postgres` database; see urlOf() for others. */
  readonly url: string;
  readonly #dir: string;
  readonly #data: string;
  readonly #user: { uid: number; gid: number } | null;
  /** `taskset -c` these CPUs, at nice 19, before postgres (every process of the server inherits them); null: any. */
  readonly #cpus: readonly number[] | null;
  #child: ChildProcess | null = null;
  #exited: Promise<void> = Promise.resolve();
  #output: () => string = () => '';
  #stopped = false;

  private constructor(port: number, dir: string, user: { uid: number; gid: number } | null, cpus: readonly number[] | null = null) {
    this.port = port;
    this.#cpus = cpus;
    this.url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    this.#dir = dir;
    this.#data = join(dir, 'data');
    this.#user = user;
  }

  /**
   * initdb into a fresh temp folder and start the server (about 2 s); with `cpus`, the server runs
   * on those CPUs only, at the lowest priority (nice 19): the load suite keeps Postgres off the core
   * it measures a service on, working in the time the load generator leaves on its own.
   */
  static async start({ cpus = null }: { cpus?: readonly number[] | null } = {}): Promise<PrivatePostgres> {
    const user = runAs();
    const dir = mkdtempSync(join(tmpdir(), 'shortener-pg-'));
    const server = new PrivatePostgres(await freePort(), dir, user, cpus);
    try {
      if (user !== null) chownSync(dir, user.uid, user.gid);
      await server.#run('initdb', ['-D', server.#data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
      await server.up();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  /**
   * A streaming standby of `primary`: `pg_basebackup -R` copies it (its primary_conninfo points at
   * the primary) to a temp folder of its own, started on a spare port once it answers, read-only.
   * About a second for a small primary. Stop it like any other.
   */
  static async replicaOf(primary: PrivatePostgres): Promise<PrivatePostgres> {
    const user = runAs();
    const dir = mkdtempSync(join(tmpdir(), 'shortener-pg-'));
    const server = new PrivatePostgres(await freePort(), dir, user);
    try {
      if (user !== null) chownSync(dir, user.uid, user.gid);
      await server.#run(serverProgram('pg_basebackup'), [
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'postgres',
        '-D',
        server.#data,
        '--write-recovery-conf',
        '--wal-method=stream',
        '--checkpoint=fast',
        '--no-sync',
      ]);
      await server.up();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  /** Waits (up to `ms`) until this standby has replayed everything `primary` has written so far. */
  async caughtUpWith(primary: PrivatePostgres, ms = 10_000): Promise<void> {
    const target = await withClient(primary.url, async (client) => {
      const { rows } = await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      return rows[0]?.lsn ?? '0/0';
    });
    await withClient(this.url, async (client) => {
      for (let waited = 0; waited < ms; waited += 20) {
        const { rows } = await client.query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [target]);
        if (rows[0]?.done === true) return;
        await sleep(20);
      }
      // What the standby says of its WAL receiver and its replay, for whoever reads the failure.
      const { rows } = await client.query(
        `SELECT pg_is_wal_replay_paused() AS paused, pg_last_wal_receive_lsn()::text AS received, pg_last_wal_replay_lsn()::text AS replayed,
                (SELECT row_to_json(r) FROM (SELECT status, last_msg_receipt_time, sender_port, conninfo FROM pg_stat_wal_receiver) r) AS receiver`,
      );
      throw new Error(`the standby on port ${this.port} did not replay up to ${target} in ${ms} ms: ${JSON.stringify(rows[0])}`);
    });
  }

  urlOf(database: string): string {
    return withDatabase(this.url, database);
  }

  /** A new, empty database on this server; its URL. */
  async createDatabase(name: string): Promise<string> {
    await withClient(this.url, (client) => client.query(`CREATE DATABASE ${name}`));
    return this.urlOf(name);
  }

  /** The postmaster's pid (it changes at each start). */
  get pid(): number {
    const pid = this.#child?.pid;
    if (pid === undefined) throw new Error('postgres is not running');
    return pid;
  }

  /** Runs a program to its end as the postgres user; rejects with its output if it fails. */
  async #run(command: string, args: string[]): Promise<void> {
    const child = spawn(command, args, { ...this.#spawnOptions(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', resolve);
    });
    if (code !== 0) throw new Error(`${command} exited with ${code}: ${output}`);
  }

  #spawnOptions() {
    // A fixed locale: initdb and postgres must not depend on the environment's.
    const env = { PATH: process.env.PATH ?? '', LC_ALL: 'C', HOME: this.#dir };
    return this.#user === null ? { env } : { env, uid: this.#user.uid, gid: this.#user.gid };
  }

  /** Starts the postmaster on the existing data (after down() or kill()) and waits until it answers. */
  async up(): Promise<void> {
    if (this.#stopped) throw new Error('up() after stop()');
    if (this.#child !== null) throw new Error('postgres is already running');
    // nice and taskset exec postgres: the child's pid is the postmaster's.
    const prefix = this.#cpus === null ? [] : ['-n', '19', 'taskset', '-c', this.#cpus.join(','), 'postgres'];
    const child = spawn(
      this.#cpus === null ? 'postgres' : 'nice',
      [
        ...prefix,
        '-D',
        this.#data,
        '-p',
        String(this.port),
        '-k',
        this.#dir,
        '-c',
        'listen_addresses=127.0.0.1',
        // Losing data on a crash of the machine is fine for a test; a crash of postgres alone
        // loses nothing committed (the WAL is still written before each commit returns).
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=60',
        '-c',
        'shared_buffers=16MB',
        '-c',
        'log_min_messages=fatal',
        // A standby that fell behind (its WAL sender stopped by a test, a busy machine) can still
        // stream what it lacks: with no replication slot, a checkpoint (pg_basebackup's fast one
        // for another standby) may otherwise remove the segments it needs, and it never catches up.
        '-c',
        'wal_keep_size=256MB',
      ],
      { ...this.#spawnOptions(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.#child = child;
    running.set(child, this.#dir);
    const watched = watchChild(child, () => running.delete(child));
    this.#exited = watched.exited;
    this.#output = () => watched.output();
    for (let waited = 0; waited < 30_000; waited += 50) {
      if (watched.hasExited()) {
        this.#child = null;
        throw new Error(`postgres on port ${this.port} exited at start: ${this.#output()}`);
      }
      if (await this.#answers()) return;
      await sleep(50);
    }
    throw new Error(`postgres on port ${this.port} did not answer in 30 s: ${this.#output()}`);
  }

  /** One SELECT 1 on a fresh connection (a server starting up refuses it). */
  async #answers(): Promise<boolean> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 1000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  }

  /** The postmaster and every process it started. */
  #tree(): number[] {
    const pid = this.#child?.pid;
    return pid === undefined ? [] : [pid, ...childrenOf(pid)];
  }

  /**
   * Freezes the server: the postmaster first (so it forks nothing new), then its backends and
   * helpers. Open connections stay open and nothing is answered; new ones get no startup reply.
   */
  pause(): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    signal([pid], 'SIGSTOP');
    signal(childrenOf(pid), 'SIGSTOP');
  }

  resume(): void {
    signal(this.#tree(), 'SIGCONT');
  }

  /** Waits (up to `ms`) for the postmaster to exit; false if it did not. */
  async #waitExit(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(resolve, ms, false);
    });
    const child = this.#child;
    child?.ref(); // the event loop must stay up until the exit is seen
    try {
      return await Promise.race([this.#exited.then(() => true), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The backends of the postmaster that are still running, after it exited. */
  async #waitChildren(pids: readonly number[]): Promise<void> {
    for (let waited = 0; waited < 5000 && pids.some(alive); waited += 20) await sleep(20);
    signal(pids.filter(alive), 'SIGKILL');
  }

  /**
   * `pg_ctl stop -m fast`: open sessions are ended, the server shuts down cleanly, the data stays.
   * Then up() starts it again.
   */
  async down(): Promise<void> {
    if (this.#child === null) return;
    const tree = this.#tree();
    signal(tree, 'SIGCONT');
    signal([this.pid], 'SIGINT');
    if (!(await this.#waitExit(10_000))) throw new Error(`postgres on port ${this.port} did not shut down in 10 s`);
    this.#child = null;
    await this.#waitChildren(tree);
  }

  /** `pg_ctl restart -m fast`. */
  async restart(): Promise<void> {
    await this.down();
    await this.up();
  }

  /**
   * A crash: SIGKILL to the postmaster and every backend at once (a postmaster killed alone leaves
   * backends that would stop the next start). The data stays; up() recovers it from the WAL.
   */
  async kill(): Promise<void> {
    if (this.#child === null) return;
    const tree = this.#tree();
    signal(tree, 'SIGKILL');
    signal(tree, 'SIGCONT');
    await this.#waitExit(10_000);
    this.#child = null;
    await this.#waitChildren(tree);
  }

  /** Stops the server (cleanly if it can) and removes its folder. Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#child !== null) {
      const tree = this.#tree();
      signal(tree, 'SIGCONT');
      signal([this.pid], 'SIGQUIT');
      if (!(await this.#waitExit(5000))) signal(this.#tree(), 'SIGKILL');
      await this.#waitExit(5000);
      this.#child = null;
      await this.#waitChildren(tree);
    }
    await rm(this.#dir, { recursive: true, force: true });
  }

  /**
   * Statements of the service (application_name 'shortener') running now, for how long, and what
   * each waits on (`waitEventType` 'Lock' for one queued behind a lock; null while it runs).
   */
  async appStatements(database: string): Promise<AppStatement[]> {
    return withClient(this.url, async (client) => {
      const { rows } = await client.query<AppStatement>(
        `SELECT pid, state, (extract(epoch FROM clock_timestamp() - query_start) * 1000)::int AS ms, query,
                wait_event_type AS "waitEventType", wait_event AS "waitEvent"
         FROM pg_stat_activity
         WHERE datname = $1 AND application_name = 'shortener' AND state <> 'idle'`,
        [database],
      );
      return rows;
    });
  }

  /** Every connection of the service to `database`, idle ones too, with the time its backend started. */
  async appBackends(database: string): Promise<AppBackend[]> {
    return withClient(this.url, async (client) => {
      const { rows } = await client.query<AppBackend>(
        `SELECT pid, state, (extract(epoch FROM backend_start) * 1000)::float8 AS "startedAt"
         FROM pg_stat_activity
         WHERE datname = $1 AND application_name = 'shortener'`,
        [database],
      );
      return rows;
    });
  }
}

export interface AppStatement {
  readonly pid: number;
  readonly state: string;
  /** Since the statement started. */
  readonly ms: number;
  readonly query: string;
  readonly waitEventType: string | null;
  readonly waitEvent: string | null;
}

export interface AppBackend {
  readonly pid: number;
  readonly state: string;
  /** Epoch milliseconds (Date.now()) when the server started this connection's backend. */
  readonly startedAt: number;
}
