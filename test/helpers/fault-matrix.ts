// What every row of the fault matrices (test/faults/) shares: a private Postgres for the file, the
// service as a child process (killed when its test ends), links written straight into Postgres
// with some of them warmed into its LRU, a load of reads and creates against it, and the answers a
// sick database may give.

import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { insertRawLinks } from './db.ts';
import { Load, offenders, warm, type Answer } from './load.ts';
import { PrivatePostgres } from './private-postgres.ts';
import { startServer, type ServerProcess } from './server-process.ts';

/** Registers the file's private Postgres (started before its tests, stopped after them); its getter. */
export function privatePostgres(): () => PrivatePostgres {
  let postgres: PrivatePostgres | undefined;
  before(async () => {
    postgres = await PrivatePostgres.start();
  });
  after(() => postgres?.stop());
  return () => {
    if (postgres === undefined) throw new Error('the private Postgres is not started yet');
    return postgres;
  };
}

/** The service as a child process, SIGKILLed and awaited when the test ends. */
export async function startService(t: { after(fn: () => Promise<unknown>): void }, env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServer(env);
  t.after(async () => {
    server.child.kill('SIGKILL');
    await server.exited;
  });
  return server;
}

/** `count` links `<prefix>-<i>` written straight into Postgres, the first `cached` of them read once (in the LRU); the rest apart. */
export async function seedLinks(databaseUrl: string, base: string, prefix: string, count: number, cached: number) {
  const codes = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  await insertRawLinks(databaseUrl, codes);
  const warmed = codes.slice(0, cached);
  assert.deepEqual(await warm(base, warmed), []);
  return { cached: warmed, rest: codes.slice(cached) };
}

/** The load of every row: six readers (cached and uncached codes) and three creators, for at most 30 s. */
export function rowLoad(base: string, cached: string[], uncached: string[], label: string): Load {
  return new Load(base, { readers: 6, creators: 3, cached, uncached, label, phase: 'healthy', maxMs: 30_000 });
}

/** What a request needing Postgres may get while it is sick: 503, Retry-After: 1, one of the database's codes. */
export const unavailable = (a: Answer): boolean =>
  a.status === 503 && a.retryAfter === '1' && (a.error === 'DATABASE_UNAVAILABLE' || a.error === 'DATABASE_TIMEOUT');

/** Every cached code kept redirecting (the first ten that did not). */
export function cachedNotRedirected(load: Load): string[] {
  return offenders(
    load.of('read').filter((a) => a.cached),
    (a) => a.status === 302,
  ).slice(0, 10);
}
