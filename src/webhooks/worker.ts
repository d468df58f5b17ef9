// The webhook worker, one per instance. Every WEBHOOK_POLL_MS, and at once after a round that sent
// something, it claims due deliveries from the outbox (delivery-store.ts), sends them (sender.ts)
// and records each as delivered, due again after WEBHOOK_RETRY_SCHEDULE's next wait, or dead; it
// also writes the events no request makes (link.expiring, link.expired, and link.click_limit_reached counted in
// Redis) and prunes the delivery log hourly. At least once, in order per link: docs/api.md#webhooks.

import type { Logger } from 'pino';
import type pg from 'pg';
import { retryDelayMs } from '../core/webhooks.ts';
import type { SendResult, SignedMessage } from './sender.ts';
import {
  announceExpiries,
  announceExpiring,
  announceLimitsReached,
  claimDeliveries,
  pruneDeliveries,
  recordOutcomes,
  type ClaimedDelivery,
  type DeliveryOutcome,
  type LimitReached,
} from './delivery-store.ts';

export interface WebhookWorkerDeps {
  readonly pool: pg.Pool;
  send(message: SignedMessage): Promise<SendResult>;
  /** The body of a claimed delivery's message (body.ts). */
  render(delivery: ClaimedDelivery): string;
  readonly schedule: readonly number[];
  readonly timeoutMs: number;
  readonly maxInFlight: number;
  readonly pollMs: number;
  readonly retentionDays: number;
  /** LINK_EXPIRING_NOTICE_HOURS: how long before its expiry a link's link.expiring is written; 0: never. */
  readonly expiringNoticeMs: number;
  readonly log: Logger;
  /** Told of each try's outcome (metrics). */
  readonly tried?: ((outcome: DeliveryOutcome) => void) | undefined;
}

/** Endpoints one claim serves. */
const ENDPOINTS_PER_CLAIM = 50;
/** Links whose expiry one sweep reports. */
const EXPIRIES_PER_SWEEP = 1000;
/** Click-limit events kept while Postgres cannot take them; more are dropped, and logged. */
const REACHED_KEPT = 10_000;
const PRUNE_EVERY_MS = 3_600_000;

export class WebhookWorker {
  readonly #deps: WebhookWorkerDeps;
  /** How long a claim holds a delivery: longer than any send, and the record of its outcome. */
  readonly #leaseMs: number;
  #timer: NodeJS.Timeout | null = null;
  /** When the timer fires (performance.now()). */
  #timerAt = 0;
  #round: Promise<void> | null = null;
  #sending = new Set<Promise<void>>();
  #outcomes: DeliveryOutcome[] = [];
  #reached: LimitReached[] = [];
  #prunedAt = 0;
  /** When links' expiries were last swept (a round right after a send does not sweep again). */
  #sweptAt = -Infinity;
  #tried = 0;
  #failing = false;
  /** Asked for while a round was under way: another follows it at once. */
  #again = false;
  #closed = false;

  constructor(deps: WebhookWorkerDeps) {
    this.#deps = deps;
    this.#leaseMs = deps.timeoutMs * 2 + 5000;
  }

  start(): void {
    if (this.#closed) return;
    this.#schedule(0);
  }

  /** Looks for due deliveries now rather than at the next poll: one was just queued on demand (a test event). */
  wake(): void {
    this.#schedule(0);
  }

  /** Tries this instance made. */
  get tried(): number {
    return this.#tried;
  }

  /** Deliveries under way in this instance. */
  get inFlight(): number {
    return this.#sending.size;
  }

  /** Links whose click limit a grant in Redis used up: their events are written on the next round. */
  limitsReached(links: readonly LimitReached[]): void {
    const room = REACHED_KEPT - this.#reached.length;
    if (links.length > room)
      this.#deps.log.error({ dropped: links.length - room }, 'link.click_limit_reached events dropped: too many waiting for Postgres');
    this.#reached.push(...links.slice(0, Math.max(room, 0)));
  }

  /** Stops claiming; waits for the sends under way and records them (what cannot be recorded is sent again after its lease). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#round;
    await Promise.all(this.#sending);
    try {
      await this.#record();
      await this.#announceReached();
    } catch (err) {
      this.#deps.log.warn({ err }, 'webhook outcomes not recorded at shutdown: those deliveries are sent again when their lease ends');
    }
  }

  /** Runs a round in `ms`, unless one is due sooner already. */
  #schedule(ms: number): void {
    if (this.#closed) return;
    const at = performance.now() + ms;
    if (this.#timer !== null) {
      if (this.#timerAt <= at) return;
      clearTimeout(this.#timer);
    }
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#round !== null) {
        this.#again = true;
        return;
      }
      this.#again = false;
      this.#round = this.#runRound().finally(() => {
        this.#round = null;
      });
    }, ms);
    this.#timer.unref();
  }

  async #runRound(): Promise<void> {
    let claimed = 0;
    try {
      await this.#record();
      await this.#announceReached();
      if (performance.now() - this.#sweptAt >= this.#deps.pollMs) {
        this.#sweptAt = performance.now();
        await announceExpiries(this.#deps.pool, EXPIRIES_PER_SWEEP);
        if (this.#deps.expiringNoticeMs > 0) await announceExpiring(this.#deps.pool, this.#deps.expiringNoticeMs, EXPIRIES_PER_SWEEP);
      }
      if (Date.now() - this.#prunedAt > PRUNE_EVERY_MS) {
        this.#prunedAt = Date.now();
        await pruneDeliveries(this.#deps.pool, this.#deps.retentionDays);
      }
      if (!this.#closed) {
        const deliveries = await claimDeliveries(this.#deps.pool, {
          endpoints: ENDPOINTS_PER_CLAIM,
          inFlight: this.#deps.maxInFlight,
          leaseMs: this.#leaseMs,
        });
        claimed = deliveries.length;
        for (const delivery of deliveries) this.#dispatch(delivery);
      }
      if (this.#failing) this.#deps.log.info('webhook outbox reachable again');
      this.#failing = false;
    } catch (err) {
      if (!this.#failing) this.#deps.log.warn({ err }, 'webhook outbox could not be read or written: retrying every poll');
      this.#failing = true;
    }
    // A round that claimed something may have left more due (a link's next event): look again soon.
    this.#schedule(claimed > 0 || this.#again ? 0 : this.#deps.pollMs);
  }

  #dispatch(delivery: ClaimedDelivery): void {
    const sending = this.#send(delivery).finally(() => {
      this.#sending.delete(sending);
    });
    this.#sending.add(sending);
  }

  async #send(delivery: ClaimedDelivery): Promise<void> {
    let result: SendResult;
    try {
      const body = this.#deps.render(delivery);
      result = await this.#deps.send({ url: delivery.url, msgId: delivery.msgId, secrets: delivery.secrets, body });
    } catch (err) {
      result = { status: null, error: err instanceof Error ? err.message : String(err), latencyMs: 0 };
    }
    const delivered = result.status !== null && result.status >= 200 && result.status < 300;
    const delay = delivered ? undefined : retryDelayMs(delivery.attempts, this.#deps.schedule, Math.random());
    const outcome: DeliveryOutcome = {
      id: delivery.id,
      attempts: delivery.attempts,
      state: delivered ? 'delivered' : delay === undefined ? 'dead' : 'pending',
      retryAt: delay === undefined ? null : new Date(Date.now() + delay),
      status: result.status,
      error: result.error,
      latencyMs: result.latencyMs,
    };
    if (outcome.state === 'dead')
      this.#deps.log.warn(
        { delivery: delivery.id, endpoint: delivery.endpointId, error: result.error },
        'webhook delivery dead after its last try',
      );
    this.#tried++;
    this.#deps.tried?.(outcome);
    this.#outcomes.push(outcome);
    // Recorded with the next round, which comes at once: the link's next event may be waiting for this one.
    this.#schedule(0);
  }

  /** Writes the outcomes waiting; kept for the next round if Postgres cannot take them. */
  async #record(): Promise<void> {
    if (this.#outcomes.length === 0) return;
    const outcomes = this.#outcomes;
    this.#outcomes = [];
    try {
      await recordOutcomes(this.#deps.pool, outcomes);
    } catch (err) {
      this.#outcomes = outcomes.concat(this.#outcomes);
      throw err;
    }
  }

  async #announceReached(): Promise<void> {
    if (this.#reached.length === 0) return;
    const reached = this.#reached;
    this.#reached = [];
    try {
      await announceLimitsReached(this.#deps.pool, reached);
    } catch (err) {
      this.#reached = reached.concat(this.#reached).slice(0, REACHED_KEPT);
      throw err;
    }
  }
}
