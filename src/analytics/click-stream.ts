// The click stream (CLICK_STREAM=redis): the analytics' enriched clicks, added to Redis Streams
// `<REDIS_KEY_PREFIX>clicks:<shard>` for consumer groups of the deployment's own, as one EVALSHA
// per EVENTS_PER_COMMAND events, never a command per click, on a connection of its own. Redis is
// not the truth here: a batch it does not take is dropped, counted and logged, and redirects and
// the rollups never wait on it. The keys, the events, what is lost: docs/api.md#click-stream.

import type { Logger } from 'pino';
import { eventBatches, type EventBatch, type EventFormat, type LoggedClicks } from './click-events.ts';
import type { ClickSink } from './visits.ts';
import { createRedisClient, type RedisClient, type RedisConfig } from '../redis/client.ts';

/** A stream command not answered by then is counted as dropped (Redis may still have added it). */
const STREAM_TIMEOUT_MS = 5000;
/** Events sent and not yet answered, at most: past it, batches are dropped rather than held. */
const IN_FLIGHT_MAX = 200_000;

/** The stream of shard `shard`. */
export function streamKey(prefix: string, shard: number): string {
  return `${prefix}clicks:${shard}`;
}

/**
 * KEYS[1]: the stream; ARGV[1]: MAXLEN; ARGV[2]: events joined by newlines, each its values in
 * EVENT_FIELDS order joined by tabs. Each event is one entry of two fields, its ordinal `n` and the
 * line as it came (`event`): split into sixteen fields here, an event costs Redis 6.6-7.8 us of Lua
 * and XADD; as one value, 3.6 us (docs/performance.md#the-click-stream-what-it-costs). Returns the
 * events added.
 */
export const ADD_EVENTS_SCRIPT = `
local key = KEYS[1]
local added = 0
if redis.call('EXISTS', key) == 1 then
  local info = redis.call('XINFO', 'STREAM', key)
  for i = 1, #info, 2 do
    if info[i] == 'entries-added' then
      added = info[i + 1]
      break
    end
  end
end
local n = added
for line in string.gmatch(ARGV[2], '[^\\n]+') do
  n = n + 1
  redis.call('XADD', key, 'MAXLEN', '~', ARGV[1], '*', 'n', n, 'event', line)
end
return n - added
`;

interface EventAdder {
  addClickEvents(key: string, maxlen: number, payload: string): Promise<unknown>;
}

export interface ClickStreamOptions {
  readonly redis: RedisConfig;
  readonly prefix: string;
  readonly maxlen: number;
  readonly format: EventFormat;
  readonly log: Logger;
}

export class ClickStream implements ClickSink {
  readonly #client: RedisClient;
  readonly #adder: EventAdder;
  readonly #keys: readonly string[];
  readonly #options: ClickStreamOptions;
  readonly #inFlight = new Set<Promise<void>>();
  #inFlightEvents = 0;
  #sent = 0;
  #dropped = 0;
  /** Events dropped since the stream last worked (logged when it works again). */
  #failing: number | null = null;

  constructor(options: ClickStreamOptions) {
    this.#options = options;
    const client = createRedisClient({ ...options.redis, redisCommandTimeoutMs: STREAM_TIMEOUT_MS, redisAutoPipelining: false });
    if (client === null) throw new Error('CLICK_STREAM=redis needs REDIS_URL or REDIS_CLUSTER_URLS');
    // A failed command says so, once per outage; the connection's own errors would say it again.
    client.on('error', () => {});
    client.defineCommand('addClickEvents', { numberOfKeys: 1, lua: ADD_EVENTS_SCRIPT });
    this.#client = client;
    this.#adder = client as unknown as EventAdder;
    this.#keys = Array.from({ length: options.format.shards }, (_, shard) => streamKey(options.prefix, shard));
  }

  /** The streams' keys, shard by shard. */
  get keys(): readonly string[] {
    return this.#keys;
  }

  /** Events Redis took. */
  get sent(): number {
    return this.#sent;
  }

  /** Events dropped: Redis did not take them, or too many waited for it. */
  get dropped(): number {
    return this.#dropped;
  }

  add(clicks: LoggedClicks): void {
    let batches: EventBatch[];
    try {
      batches = eventBatches(clicks, this.#options.format);
    } catch (err) {
      this.#drop(clicks.to - clicks.from, err);
      return;
    }
    for (const batch of batches) this.#send(batch);
  }

  /** Waits for the commands under way (each ends within its timeout), then lets the connection go. */
  async close(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
    this.#client.disconnect();
  }

  #send(batch: EventBatch): void {
    if (this.#inFlightEvents + batch.events > IN_FLIGHT_MAX) {
      this.#drop(batch.events, new Error(`more than ${IN_FLIGHT_MAX} events waiting for Redis`));
      return;
    }
    this.#inFlightEvents += batch.events;
    const sending = this.#adder
      .addClickEvents(this.#keys[batch.shard] as string, this.#options.maxlen, batch.payload)
      .then(
        () => {
          this.#sent += batch.events;
          if (this.#failing !== null) {
            this.#options.log.info({ dropped: this.#failing }, 'click stream: Redis takes events again');
            this.#failing = null;
          }
        },
        (err: unknown) => this.#drop(batch.events, err),
      )
      .finally(() => {
        this.#inFlightEvents -= batch.events;
        this.#inFlight.delete(sending);
      });
    this.#inFlight.add(sending);
  }

  #drop(events: number, err: unknown): void {
    this.#dropped += events;
    if (this.#failing === null) {
      this.#options.log.warn({ err, events }, 'click stream: events dropped (Redis did not take them); the rollups in Postgres go on');
      this.#failing = 0;
    }
    this.#failing += events;
  }
}
