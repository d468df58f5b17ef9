// What the suite starts and leaves behind (servers, a Postgres or a Redis of its own, a scratch
// folder, scratch databases, Redis keys), kept in one place, so that every one of them is stopped
// or removed when the suite ends, however it ends (its end, a failure, Ctrl-C, its watchdog).

import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type ServerProcess } from '../test/helpers/server-process.ts';

// Servers run with the Node flags that `npm start` gives the service (package.json), nothing else.
const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
// Given as arguments, not NODE_OPTIONS, which refuses V8's own flags (--liftoff-only).
export const SERVICE_NODE_FLAGS: readonly string[] =
  /^node((?: --\S+)*) src\/process\/main\.ts$/
    .exec(packageJson.scripts.start)?.[1]
    ?.trim()
    .split(' ')
    .filter((flag) => flag !== '') ?? [];

/** A file of load/ (a server, a probe) by its name there. */
export function loadScript(name: string): string {
  return new URL(name, import.meta.url).pathname;
}

/** The CODE_SECRET of every server a load run starts: its own, since the service refuses the development default with DATABASE_URL. */
export const LOAD_CODE_SECRET = 'load-suite-code-secret-not-for-production';

export class Processes {
  /** A temporary folder of the run's own, removed at its end. */
  readonly scratch: string;
  readonly #serverPrefix: readonly string[];
  readonly #live = new Set<ServerProcess>();
  readonly #cleanups: (() => Promise<unknown>)[] = [];

  private constructor(scratch: string, serverPrefix: readonly string[]) {
    this.scratch = scratch;
    this.#serverPrefix = serverPrefix;
    this.#cleanups.push(() => rm(scratch, { recursive: true, force: true }));
  }

  /** `serverPrefix`: the command every server runs under (`taskset -c 1`), or none. */
  static async open(serverPrefix: readonly string[]): Promise<Processes> {
    return new Processes(await mkdtemp(join(tmpdir(), 'shortener-load-')), serverPrefix);
  }

  /** Starts a server (the service unless `name`, a file of load/ or an absolute path, says otherwise) and keeps it on the list to stop. */
  async launch(env: Record<string, string>, name = '../src/process/main.ts', prefix = this.#serverPrefix): Promise<ServerProcess> {
    // Every server, baselines included, runs with the same Node flags. All load comes from one
    // address, whose 404 budget the not-found scenario would spend in a second, and whose create
    // limit the seeding and the create scenarios would; they create plain links without a key. The
    // branded-domain scenario's domain is named in Host alone, with no DNS to verify it:
    // DOMAIN_VERIFICATION=false serves it as added.
    const server = await startServer(
      {
        NOT_FOUND_LIMIT_PER_MINUTE: '0',
        RATE_LIMIT_ENABLED: 'false',
        CODE_SECRET: LOAD_CODE_SECRET,
        CREATE_REQUIRES_API_KEY: 'false',
        DOMAIN_VERIFICATION: 'false',
        ...env,
      },
      120_000,
      name.startsWith('/') ? name : loadScript(name),
      prefix,
      SERVICE_NODE_FLAGS,
    );
    return this.adopt(server);
  }

  /** Keeps a server started otherwise (the Go reference) on the list to stop. */
  adopt(server: ServerProcess): ServerProcess {
    this.#live.add(server);
    return server;
  }

  /** Stops a server of the list (once: a server already stopped is left alone). */
  async stop(server: ServerProcess): Promise<void> {
    if (!this.#live.has(server)) return;
    // A server stopped (SIGSTOP) beside another's run would not act on the SIGTERM.
    server.child.kill('SIGCONT');
    server.child.kill('SIGTERM');
    // The service drains within its SHUTDOWN_GRACE_MS (10 s); anything slower is stuck.
    const stuck = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
    await server.exited;
    clearTimeout(stuck);
    this.#live.delete(server);
  }

  /** Runs `cleanup` when the suite ends (after its servers have stopped), the last registered first. */
  onCleanup(cleanup: () => Promise<unknown>): void {
    this.#cleanups.push(cleanup);
  }

  /** Stops every server still up (after a failure, they hold the scratch database and keep this process alive), then cleans up. */
  async close(): Promise<void> {
    for (const server of this.#live) await this.stop(server);
    await this.#cleanUp();
  }

  /** Ends from outside the suite's flow (watchdog, Ctrl-C): every server killed, then cleaned up. */
  async abandon(): Promise<void> {
    for (const server of this.#live) server.child.kill('SIGKILL');
    await this.#cleanUp();
  }

  async #cleanUp(): Promise<void> {
    for (const cleanup of this.#cleanups.splice(0).toReversed()) await cleanup().catch((err: unknown) => console.error(err));
  }
}
