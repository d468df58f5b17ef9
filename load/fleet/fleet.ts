// A fleet on one machine, as processes on spare loopback ports: a Postgres primary and a streaming
// standby, a Redis Cluster of three masters with a replica each, the service's instances (each a
// `node src/process/main.ts` with the cluster, the standby and one CODE_SECRET) and HAProxy in front on
// the shipped configuration. One instance reaches Redis through a TCP fault proxy per node
// (REDIS_CLUSTER_NAT_MAP), so that it can be cut off from Redis alone.

import { keysWith } from '../../test/helpers/workspaces.ts';
import { PrivatePostgres } from '../../test/helpers/private-postgres.ts';
import { freePort, PrivateRedisCluster } from '../../test/helpers/redis.ts';
import { startServer, type ServerProcess } from '../../test/helpers/server-process.ts';
import { TcpProxy } from '../../test/helpers/tcp-proxy.ts';
import { Haproxy } from './haproxy.ts';

/** How long /readyz fails after SIGTERM, as in the compose stack: past HAProxy's two failed checks two seconds apart (deploy/haproxy.cfg). */
export const READINESS_DRAIN_MS = 5000;

export class Instance {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  /** Set on the instance that reaches Redis through proxies: one per cluster node. */
  readonly redisProxies: readonly TcpProxy[];
  readonly #env: Record<string, string>;
  #process: ServerProcess | null = null;

  constructor(name: string, port: number, env: Record<string, string>, redisProxies: readonly TcpProxy[]) {
    this.name = name;
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    this.#env = { ...env, PORT: String(port) };
    this.redisProxies = redisProxies;
  }

  async start(): Promise<void> {
    this.#process = await startServer(this.#env, 60_000);
  }

  /** SIGKILL: the process dies with its requests in flight and its unflushed clicks. */
  async kill(): Promise<void> {
    const process = this.#process;
    if (process === null) return;
    process.child.kill('SIGKILL');
    await process.exited;
    this.#process = null;
  }

  /** SIGTERM, and the exit: the drain's outcome (exit code 0 when it drained). */
  async term(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const process = this.#process;
    if (process === null) return { code: null, signal: null };
    process.child.kill('SIGTERM');
    const exit = await process.exited;
    this.#process = null;
    return exit;
  }
}

export interface FleetOptions {
  readonly instances: number;
  /** Added to every instance's environment. */
  readonly env?: Record<string, string>;
  readonly log: (line: string) => void;
}

export class Fleet {
  readonly primary: PrivatePostgres;
  readonly standby: PrivatePostgres;
  readonly databaseUrl: string;
  readonly redis: PrivateRedisCluster;
  readonly instances: Instance[];
  readonly haproxy: Haproxy;
  readonly apiKey: string;

  private constructor(parts: {
    primary: PrivatePostgres;
    standby: PrivatePostgres;
    databaseUrl: string;
    redis: PrivateRedisCluster;
    instances: Instance[];
    haproxy: Haproxy;
    apiKey: string;
  }) {
    this.primary = parts.primary;
    this.standby = parts.standby;
    this.databaseUrl = parts.databaseUrl;
    this.redis = parts.redis;
    this.instances = parts.instances;
    this.haproxy = parts.haproxy;
    this.apiKey = parts.apiKey;
  }

  static async start(options: FleetOptions): Promise<Fleet> {
    const stops: (() => Promise<void>)[] = [];
    try {
      options.log('starting Postgres, its standby and a Redis Cluster of 3 masters and 3 replicas');
      const primary = await PrivatePostgres.start();
      stops.push(() => primary.stop());
      const databaseUrl = await primary.createDatabase('fleet');
      // Whichever of the two started is stopped if the other failed.
      const [standbyStarted, redisStarted] = await Promise.allSettled([
        PrivatePostgres.replicaOf(primary),
        PrivateRedisCluster.start(3, 1),
      ]);
      for (const started of [standbyStarted, redisStarted]) if (started.status === 'fulfilled') stops.push(() => started.value.stop());
      if (standbyStarted.status === 'rejected') throw standbyStarted.reason;
      if (redisStarted.status === 'rejected') throw redisStarted.reason;
      const [standby, redis] = [standbyStarted.value, redisStarted.value];
      const proxies = redis.nodes.map((node) => new TcpProxy('127.0.0.1', node.port));
      await Promise.all(proxies.map((proxy) => proxy.up()));
      stops.push(async () => {
        await Promise.all(proxies.map((proxy) => proxy.down()));
      });
      const env = {
        DATABASE_URL: databaseUrl,
        DATABASE_REPLICA_URLS: standby.urlOf('fleet'),
        REDIS_KEY_PREFIX: 'fleet:',
        CODE_SECRET: 'fleet-test-code-secret-of-all-instances',
        TRUST_PROXY: 'loopback',
        READINESS_DRAIN_MS: String(READINESS_DRAIN_MS),
        WEBHOOK_ALLOW_PRIVATE: 'true',
        ...options.env,
      };
      const direct = { ...env, REDIS_CLUSTER_URLS: redis.urls.join(',') };
      // The last instance is the one a partition cuts off from Redis: every node through its proxy.
      const mapped = {
        ...env,
        REDIS_CLUSTER_URLS: proxies.map((proxy) => `redis://127.0.0.1:${proxy.port}`).join(','),
        REDIS_CLUSTER_NAT_MAP: redis.nodes.map((node, i) => `127.0.0.1:${node.port}=127.0.0.1:${proxies[i]?.port}`).join(','),
      };
      const instances: Instance[] = [];
      for (let i = 0; i < options.instances; i++) {
        const last = i === options.instances - 1;
        instances.push(new Instance(`app-${i + 1}`, await freePort(), last ? mapped : direct, last ? proxies : []));
      }
      stops.push(async () => {
        await Promise.all(instances.map((instance) => instance.kill()));
      });
      options.log(`starting ${instances.length} instances`);
      // The first migrates the database; the others find it done.
      await instances[0]?.start();
      await Promise.all(instances.slice(1).map((instance) => instance.start()));
      const { admin } = await keysWith(databaseUrl, { admin: 'admin' });
      const haproxy = await Haproxy.start(
        await freePort(),
        instances.map((instance) => ({ name: instance.name, port: instance.port })),
      );
      stops.push(() => haproxy.stop());
      options.log('HAProxy up; waiting for its health checks to pass');
      await Promise.all(instances.map((instance) => haproxy.until(instance.name, 'UP')));
      return new Fleet({ primary, standby, databaseUrl, redis, instances, haproxy, apiKey: admin.secret });
    } catch (error) {
      for (const stop of stops.toReversed()) await stop().catch(() => {});
      throw error;
    }
  }

  /**
   * Every instance's SIGTERM (drained, so every click is counted), then the rest: each step runs
   * whatever the one before did, and the first failure is thrown once all have run.
   */
  async stop(): Promise<void> {
    const steps = [
      () => Promise.all(this.instances.map((instance) => instance.term())),
      () => this.haproxy.stop(),
      () => Promise.all(this.instances.flatMap((instance) => instance.redisProxies.map((proxy) => proxy.down()))),
      () => Promise.all([this.redis.stop(), this.standby.stop()]),
      () => this.primary.stop(),
    ];
    const failures: unknown[] = [];
    for (const step of steps) await step().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  }
}
