// The faults the fleet test injects while the traffic runs, one after another. Each resolves with
// its window: from the injection to the moment the fleet is whole again (the instance back in
// HAProxy, the cluster ok, the standby caught up, the instance hearing Redis again).

import { setTimeout as sleep } from 'node:timers/promises';
import { until } from '../../test/helpers/wait.ts';
import { redisInUse } from '../../test/helpers/redis.ts';
import type { Fleet, Instance } from './fleet.ts';
import type { FaultWindow } from './types.ts';

export interface FaultContext {
  readonly fleet: Fleet;
  /** Seconds since the traffic started. */
  readonly now: () => number;
  readonly log: (line: string) => void;
  /** When each SIGKILL was sent and when its process was seen gone (ms since the traffic started): requests in flight then may fail. */
  readonly kills: Kill[];
  /** How long a paused standby or a partition lasts, ms. */
  readonly holdMs: number;
}

export interface Kill {
  readonly sent: number;
  readonly gone: number;
}

export interface Fault {
  readonly name: string;
  readonly run: (context: FaultContext) => Promise<FaultWindow>;
}

function instance(fleet: Fleet, index: number): Instance {
  const found = fleet.instances[index];
  if (found === undefined) throw new Error(`the fleet has no instance ${index + 1}`);
  return found;
}

/** SIGKILL of the first instance; it is started again after a second (an orchestrator's restart). */
async function killInstance({ fleet, now, log, kills }: FaultContext): Promise<FaultWindow> {
  const victim = instance(fleet, 0);
  const start = now();
  await victim.kill();
  kills.push({ sent: start * 1000, gone: now() * 1000 });
  const down = await fleet.haproxy.until(victim.name, 'DOWN');
  log(`${victim.name} killed; HAProxy took it out after ${Math.round(down)} ms`);
  await sleep(1000);
  await victim.start();
  const up = await fleet.haproxy.until(victim.name, 'UP');
  log(`${victim.name} restarted; back in HAProxy ${Math.round(up)} ms after listening`);
  return { name: 'kill-instance', label: `SIGKILL of ${victim.name} (restarted)`, start, end: now() };
}

/** SIGTERM of the second instance: /readyz fails, HAProxy takes it out, it drains and exits 0. */
async function termInstance({ fleet, now, log }: FaultContext): Promise<FaultWindow> {
  const victim = instance(fleet, 1);
  const start = now();
  const exit = await victim.term();
  if (exit.code !== 0) throw new Error(`${victim.name} did not drain after SIGTERM: exit ${exit.code} ${exit.signal}`);
  log(`${victim.name} drained and exited 0 after ${Math.round((now() - start) * 1000)} ms`);
  await victim.start();
  const up = await fleet.haproxy.until(victim.name, 'UP');
  log(`${victim.name} restarted; back in HAProxy ${Math.round(up)} ms after listening`);
  return { name: 'term-instance', label: `SIGTERM of ${victim.name} (restarted)`, start, end: now() };
}

/** SIGKILL of a Redis master: its replica takes over; the node comes back empty, as a replica. */
async function redisFailover({ fleet, now, log }: FaultContext): Promise<FaultWindow> {
  const start = now();
  const victim = await fleet.redis.killMaster();
  log(`Redis master on port ${victim.port} killed; its replica took over after ${Math.round((now() - start) * 1000)} ms`);
  await fleet.redis.rejoin(victim);
  log(`the killed node is back, as a replica (${(await fleet.redis.roles()).join(', ')})`);
  // An instance whose subscription was on the dead master hears nothing until it has subscribed again.
  await Promise.all(fleet.instances.map((i) => until(`${i.name} on Redis again`, redisInUse(i.url), 30_000)));
  return { name: 'redis-failover', label: 'Redis master killed, replica promoted', start, end: now() };
}

/** SIGSTOP of the standby for longer than DATABASE_REPLICA_MAX_LAG_MS, then SIGCONT until it has caught up. */
async function standbyPause({ fleet, now, log, holdMs }: FaultContext): Promise<FaultWindow> {
  const start = now();
  fleet.standby.pause();
  await sleep(holdMs);
  fleet.standby.resume();
  await fleet.standby.caughtUpWith(fleet.primary, 30_000);
  log(`standby paused ${holdMs} ms, resumed and caught up`);
  return { name: 'standby-pause', label: `standby paused ${holdMs / 1000} s`, start, end: now() };
}

/**
 * A restart of the primary that takes a while, as one with a long checkpoint or recovery does:
 * `pg_ctl stop -m fast`, down for `holdMs`, started again. Over when every instance is back in
 * HAProxy and the standby has caught up.
 */
async function primaryRestart({ fleet, now, log, holdMs }: FaultContext): Promise<FaultWindow> {
  const start = now();
  await fleet.primary.down();
  await sleep(holdMs);
  await fleet.primary.up();
  log(`primary down and up again in ${Math.round((now() - start) * 1000)} ms`);
  await Promise.all(fleet.instances.map((i) => fleet.haproxy.until(i.name, 'UP')));
  await fleet.standby.caughtUpWith(fleet.primary, 30_000);
  return { name: 'primary-restart', label: `Postgres primary restarted (down ${holdMs / 1000} s)`, start, end: now() };
}

/**
 * The last instance cut off from every Redis node (its proxies let nothing through, connections
 * open), then healed: the cut connections are reset, as a long partition's would time out.
 */
async function redisPartition({ fleet, now, log, holdMs }: FaultContext): Promise<FaultWindow> {
  const victim = instance(fleet, fleet.instances.length - 1);
  const start = now();
  for (const proxy of victim.redisProxies) proxy.fault = 'blackhole';
  await sleep(holdMs);
  for (const proxy of victim.redisProxies) {
    proxy.reset();
    proxy.fault = 'pass';
  }
  await until(`${victim.name} on Redis again`, redisInUse(victim.url), 30_000);
  log(`${victim.name} cut off from Redis for ${holdMs} ms, and back on it`);
  return { name: 'redis-partition', label: `${victim.name} cut off from Redis ${holdMs / 1000} s`, start, end: now() };
}

export const FAULTS: readonly Fault[] = [
  { name: 'kill-instance', run: killInstance },
  { name: 'term-instance', run: termInstance },
  { name: 'redis-failover', run: redisFailover },
  { name: 'standby-pause', run: standbyPause },
  { name: 'primary-restart', run: primaryRestart },
  { name: 'redis-partition', run: redisPartition },
];
