// Invalidation: each instance listens on one channel for codes whose redirect changed (a link
// created over a negative entry, updated, disabled, deleted) and drops them from its LRU. A lost
// message would be a stale redirect, so the subscription proves itself: invalidations are
// numbered and their count repeated in heartbeats, a gap clears the LRU, and an instance that
// hears nothing is deaf (its LRU cleared, short TTLs) until it hears again. The mechanism and the
// staleness bounds it gives: docs/architecture.md#invalidation.

import type { Logger } from 'pino';
import type { RedisClient } from './client.ts';
import { decodeInvalidation, invalidationChannel, Ledger, type Outbox } from './entries.ts';

const HEARTBEAT_MS = 1000;
const DEAF_AFTER_MS = 3000;
const DEAF_TTL_MS = 5000;
/** A sender unheard for this long is forgotten: its next message starts a new count. */
const FORGET_SENDER_MS = 10_000;
/** How late an invalidation may arrive after a message that counts it, before it is given up as missed. */
const LATE_MS = 1000;

/** What this instance does with what it hears, or fails to hear, of other instances' changes. */
export interface Invalidations {
  /** Another instance changed this code: drop it. */
  changed(code: string): void;
  /** Changes no longer reach this instance: drop what is cached, and keep entries at most `maxTtlMs` until they do. */
  deaf(maxTtlMs: number): void;
  /** A change may have been missed (a gap in a sender's count, or hearing again after a silence): drop whatever may be stale. */
  missed(): void;
}

export interface SubscriptionDeps {
  /** The shared client, for the heartbeat. */
  client: RedisClient;
  /** A connection of its own: a subscribed connection can do nothing else. */
  subscriber: RedisClient;
  prefix: string;
  /** This instance's messages: its heartbeats, numbered with its invalidations. */
  outbox: Outbox;
  invalidations: Invalidations;
  /** Every heartbeat: a chance to send what could not be sent before. */
  tick(): void;
  log: Logger;
}

export class Subscription {
  readonly #deps: SubscriptionDeps;
  readonly #channel: string;
  #timer: NodeJS.Timeout | null = null;
  #lastHeard = 0;
  #deaf = true;
  #reported = false;
  #stopped = false;
  /** What has been heard of each sender's invalidations. */
  readonly #senders = new Map<string, Ledger>();

  constructor(deps: SubscriptionDeps) {
    this.#deps = deps;
    this.#channel = invalidationChannel(deps.prefix);
  }

  /** Whether invalidations reach this instance now. */
  get live(): boolean {
    return !this.#deaf;
  }

  /** Subscribes in the background (Redis may be down at start-up) and starts the heartbeat. */
  start(): void {
    const { subscriber } = this.#deps;
    this.#deps.invalidations.deaf(DEAF_TTL_MS);
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.#channel) this.#heard(message);
    });
    // At each connect: the client has no offline queue, so a SUBSCRIBE sent before it is ready
    // would just fail. Subscribing twice to a channel is harmless.
    subscriber.on('ready', () => this.#subscribe());
    // Whatever is published until the connection is back is lost to this instance.
    subscriber.on('close', () => this.#goDeaf('the subscription connection closed'));
    this.#timer = setInterval(beat, HEARTBEAT_MS, this);
    this.#timer.unref();
  }

  beat(): void {
    const { client } = this.#deps;
    const now = performance.now();
    if (client.status === 'ready') client.publish(this.#channel, this.#deps.outbox.message([])).catch(() => {});
    if (!this.#deaf && now - this.#lastHeard > DEAF_AFTER_MS) this.#goDeaf('invalidations no longer heard');
    // A cluster's subscriber may move to another node without a word; asking again is harmless.
    if (this.#deaf) this.#subscribe();
    for (const [sender, ledger] of this.#senders) {
      if (now - ledger.lastHeard > FORGET_SENDER_MS) this.#senders.delete(sender);
      else if (ledger.overdue(now, LATE_MS)) this.#missed(sender);
    }
    this.#deps.tick();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#deps.subscriber.disconnect();
  }

  #subscribe(): void {
    const { subscriber } = this.#deps;
    if (subscriber.status === 'ready') subscriber.subscribe(this.#channel).catch(() => {});
  }

  #goDeaf(why: string): void {
    if (this.#deaf || this.#stopped) return;
    this.#deaf = true;
    this.#senders.clear();
    this.#deps.invalidations.deaf(DEAF_TTL_MS);
    this.#reported = true;
    this.#deps.log.warn(`${why}: LRU cleared, entries kept at most ${DEAF_TTL_MS} ms until they are heard again`);
  }

  #missed(sender: string): void {
    this.#deps.invalidations.missed();
    this.#deps.log.warn({ sender }, 'an invalidation was missed: LRU cleared');
  }

  #heard(message: string): void {
    const now = performance.now();
    this.#lastHeard = now;
    const { instance, seq, codes } = decodeInvalidation(message);
    if (this.#deaf) {
      this.#deaf = false;
      this.#deps.invalidations.missed();
      if (this.#reported) this.#deps.log.info('invalidations heard again: LRU cleared once more, entries kept as configured');
    }
    if (Number.isNaN(seq)) {
      // Not in this version's format: whatever it says may be an invalidation.
      this.#missed(instance);
    } else {
      const ledger = this.#senders.get(instance);
      if (ledger === undefined) this.#senders.set(instance, new Ledger(seq, now));
      else ledger.hear(seq, codes.length > 0, now);
    }
    // This instance has already updated its own LRU.
    if (instance === this.#deps.outbox.instance) return;
    for (const code of codes) this.#deps.invalidations.changed(code);
  }
}

function beat(subscription: Subscription): void {
  subscription.beat();
}
