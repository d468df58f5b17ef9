// An example consumer of the click stream (CLICK_STREAM=redis, README "Click stream"): one member
// of a consumer group reading every shard's stream with XREADGROUP and XACK, printing each event as
// a JSON line, and counting what it lost: events trimmed (MAXLEN ~) before it read them, seen as
// gaps in their ordinal `n` (the stream's count of entries added). Redis's own `entries-read` and
// `lag` of a group are not kept right across trimming (Redis 7.0), so the count is the consumer's.
//
//   REDIS_URL=redis://127.0.0.1:6379 REDIS_KEY_PREFIX=shortener: CLICK_STREAM_SHARDS=1 \
//     node scripts/click-stream-consumer.ts [group] [consumer]
//
// REDIS_CLUSTER_URLS instead of REDIS_URL reads a cluster's shards. Every 10 s, and when stopped
// (Ctrl-C), it says on stderr how many events it read and lost.

import { Cluster, Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { EVENT_FIELDS } from '../src/analytics/click-events.ts';

export type StreamRedis = Redis | Cluster;

/** One event as the stream holds it: its fields as strings (README "Click stream"). */
export type ClickEvent = Readonly<Record<string, string>>;

/** What a consumer of one stream has done. */
interface ShardState {
  readonly key: string;
  /** The ordinal of the last event the group was given; null: unknown (it was trimmed while no one read). */
  lastN: number | null;
}

export interface ConsumerOptions {
  readonly keys: readonly string[];
  readonly group: string;
  readonly consumer: string;
  /** Events asked for per read of a stream. */
  readonly count?: number;
}

type Entries = [id: string, fields: string[]][];

export class ClickStreamConsumer {
  readonly #redis: StreamRedis;
  readonly #options: ConsumerOptions;
  readonly #shards: ShardState[];
  /** Events read (and acknowledged). */
  read = 0;
  /** Events trimmed before this group read them. */
  lost = 0;
  /** Streams whose last read event was trimmed while no one read: what was lost then is not known. */
  unknown = 0;

  constructor(redis: StreamRedis, options: ConsumerOptions) {
    this.#redis = redis;
    this.#options = options;
    this.#shards = options.keys.map((key) => ({ key, lastN: null }));
  }

  /** Creates the group on every stream (from its first event, the stream too if none yet), or finds where it stands. */
  async start(): Promise<void> {
    for (const shard of this.#shards) {
      try {
        await this.#redis.xgroup('CREATE', shard.key, this.#options.group, '0', 'MKSTREAM');
        shard.lastN = 0;
      } catch (err) {
        if (!String(err).includes('BUSYGROUP')) throw err;
        shard.lastN = await this.#lastDelivered(shard.key);
        if (shard.lastN === null) this.unknown++;
      }
    }
  }

  /** Reads each stream once (this consumer's unacknowledged events first), hands each event to `handle`, acknowledges them; returns how many. */
  async poll(handle: (event: ClickEvent, key: string) => void): Promise<number> {
    let total = 0;
    for (const shard of this.#shards) {
      for (const from of ['0', '>']) {
        const reply = (await this.#redis.xreadgroup(
          'GROUP',
          this.#options.group,
          this.#options.consumer,
          'COUNT',
          this.#options.count ?? 1000,
          'STREAMS',
          shard.key,
          from,
        )) as [string, Entries][] | null;
        const entries = reply?.[0]?.[1] ?? [];
        if (entries.length === 0) continue;
        for (const [, fields] of entries) {
          const event = eventOf(fields);
          // Pending events were counted when they were first given.
          if (from === '>') this.#count(shard, Number(event.n));
          handle(event, shard.key);
        }
        await this.#redis.xack(shard.key, this.#options.group, ...entries.map(([id]) => id));
        this.read += entries.length;
        total += entries.length;
      }
    }
    return total;
  }

  #count(shard: ShardState, n: number): void {
    if (shard.lastN !== null) {
      // A smaller ordinal: the stream was deleted and made again, and counts from 1.
      this.lost += n > shard.lastN ? n - shard.lastN - 1 : n - 1;
    }
    shard.lastN = n;
  }

  /** The ordinal of the event at the group's last-delivered id: 0 if none yet, null if trimmed. */
  async #lastDelivered(key: string): Promise<number | null> {
    const groups = (await this.#redis.xinfo('GROUPS', key)) as unknown[][];
    for (const group of groups) {
      const info = new Map<string, unknown>();
      for (let i = 0; i + 1 < group.length; i += 2) info.set(String(group[i]), group[i + 1]);
      if (info.get('name') !== this.#options.group) continue;
      const id = String(info.get('last-delivered-id'));
      if (id === '0-0') return 0;
      const [entry] = (await this.#redis.xrange(key, id, id)) as Entries;
      return entry === undefined ? null : Number(eventOf(entry[1]).n);
    }
    return 0;
  }
}

/** An entry's fields (`n`, then `event`: the values tab-separated in EVENT_FIELDS order) as one object of named values. */
function eventOf(fields: readonly string[]): ClickEvent {
  const event: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i] as string;
    const value = fields[i + 1] as string;
    if (name !== 'event') {
      event[name] = value;
      continue;
    }
    const values = value.split('\t');
    EVENT_FIELDS.forEach((field, j) => {
      event[field] = values[j] ?? '';
    });
  }
  return event;
}

/** The stream keys of a deployment: `<REDIS_KEY_PREFIX>clicks:<shard>` for each of CLICK_STREAM_SHARDS. */
export function streamKeys(prefix: string, shards: number): string[] {
  return Array.from({ length: shards }, (_, shard) => `${prefix}clicks:${shard}`);
}

async function main(): Promise<void> {
  const env = process.env;
  const cluster = (env.REDIS_CLUSTER_URLS ?? '').split(',').filter((url) => url !== '');
  const redis: StreamRedis =
    cluster.length > 0
      ? new Cluster(cluster.map((url) => ({ host: new URL(url).hostname, port: Number(new URL(url).port || 6379) })))
      : new Redis(env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = streamKeys(env.REDIS_KEY_PREFIX ?? 'shortener:', Number(env.CLICK_STREAM_SHARDS ?? 1));
  const consumer = new ClickStreamConsumer(redis, {
    keys,
    group: process.argv[2] ?? 'example',
    consumer: process.argv[3] ?? `consumer-${process.pid}`,
  });
  await consumer.start();
  const say = () =>
    console.error(
      `read ${consumer.read}, lost ${consumer.lost} (trimmed before they were read)` +
        (consumer.unknown > 0 ? `, and an unknown number on ${consumer.unknown} stream(s) while no one read` : ''),
    );
  const stop = { asked: false };
  process.on('SIGINT', () => {
    stop.asked = true;
  });
  const report = setInterval(say, 10_000);
  while (!stop.asked) {
    const read = await consumer.poll((event) => process.stdout.write(`${JSON.stringify(event)}\n`));
    if (read === 0) await sleep(500);
  }
  clearInterval(report);
  say();
  redis.disconnect();
}

if (import.meta.main) await main();
