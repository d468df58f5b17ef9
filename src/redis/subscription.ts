// Invalidation: each instance listens on one channel for codes whose redirect changed (a link
// created over a negative entry, updated, disabled) and drops them from its LRU. A message lost is
// a stale redirect, so the subscription proves itself: every second the instance publishes a
// heartbeat on the channel and expects to hear it back. Unheard for DEAF_AFTER_MS (Redis down,
// hanging, or the connection lost), the instance is deaf: it clears its LRU and keeps entries for
// at most DEAF_TTL_MS until it hears the channel again, and then clears its LRU once more (what it
// cached meanwhile may have missed a message). A new instance starts deaf.
//
// Staleness bound, after a change is committed and acknowledged:
//   - every instance that hears the channel: one pub/sub delivery (milliseconds);
//   - an instance that does not: DEAF_AFTER_MS + DEAF_TTL_MS = 8 s;
//   - the changing instance could not reach Redis: its codes are published again every second
//     once it can, so the bound above applies from then on;
//   - the changing instance crashed between its commit and its publish: the LRU TTL
//     (CACHE_TTL_SECONDS) and the Redis TTL (REDIS_TTL_SECONDS).

import type { Logger } from 'pino';
import type { RedisClient } from './client.ts';
import { decodeInvalidation, encodeInvalidation, invalidationChannel } from './entries.ts';

export const HEARTBEAT_MS = 1000;
export const DEAF_AFTER_MS = 3000;
export const DEAF_TTL_MS = 5000;

export interface SubscriptionDeps {
  /** The shared client, for the heartbeat. */
  client: RedisClient;
  /** A connection of its own: a subscribed connection can do nothing else. */
  subscriber: RedisClient;
  prefix: string;
  instance: string;
  /** Drop these codes from the LRU (other instances changed them). */
  invalidate(code: string): void;
  /** Clear the LRU and keep entries at most `maxTtlMs` (undefined: as configured). */
  reset(maxTtlMs: number | undefined): void;
  /** Every heartbeat: a chance to send what could not be sent before. */
  tick(): void;
  log: Logger;
}

export class Subscription {
  readonly #deps: SubscriptionDeps;
  readonly #channel: string;
  readonly #heartbeat: string;
  #timer: NodeJS.Timeout | null = null;
  #lastHeard = 0;
  #deaf = true;
  #reported = false;

  constructor(deps: SubscriptionDeps) {
    this.#deps = deps;
    this.#channel = invalidationChannel(deps.prefix);
    this.#heartbeat = encodeInvalidation(deps.instance, []);
  }

  /** Whether invalidations reach this instance now. */
  get live(): boolean {
    return !this.#deaf;
  }

  /** Subscribes in the background (Redis may be down at start-up) and starts the heartbeat. */
  start(): void {
    const { subscriber } = this.#deps;
    this.#deps.reset(DEAF_TTL_MS);
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.#channel) this.#heard(message);
    });
    // At each connect: the client has no offline queue, so a SUBSCRIBE sent before it is ready
    // would just fail. Subscribing twice to a channel is harmless.
    subscriber.on('ready', () => {
      subscriber.subscribe(this.#channel).then(() => this.beat(), () => {});
    });
    this.#timer = setInterval(beat, HEARTBEAT_MS, this);
    this.#timer.unref();
  }

  beat(): void {
    const { client, log } = this.#deps;
    if (client.status === 'ready') client.publish(this.#channel, this.#heartbeat).catch(() => {});
    if (!this.#deaf && performance.now() - this.#lastHeard > DEAF_AFTER_MS) {
      this.#deaf = true;
      this.#deps.reset(DEAF_TTL_MS);
      this.#reported = true;
      log.warn(`invalidations no longer heard: LRU cleared, entries kept at most ${DEAF_TTL_MS} ms until they are`);
    }
    this.#deps.tick();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#deps.subscriber.disconnect();
  }

  #heard(message: string): void {
    this.#lastHeard = performance.now();
    if (this.#deaf) {
      this.#deaf = false;
      this.#deps.reset(undefined);
      if (this.#reported) this.#deps.log.info('invalidations heard again: LRU cleared once more, entries kept as configured');
    }
    const { instance, codes } = decodeInvalidation(message);
    // This instance has already updated its own LRU.
    if (instance === this.#deps.instance) return;
    for (const code of codes) this.#deps.invalidate(code);
  }
}

function beat(subscription: Subscription): void {
  subscription.beat();
}
