// The group-commit write queue. Each POST /links enqueues its link and waits; one flusher at a
// time commits up to `maxBatch` queued links in one multi-row INSERT, so a thousand concurrent
// creates cost a few round trips and commits instead of a thousand. A request is answered only
// after the batch holding its link committed. The queue is bounded: full means 503 at once, and the
// links of one workspace's bulk creates and imports may not take it past that workspace's share (an
// import's row waits for room, a bulk's item is refused), so that one workspace's flood leaves room
// for the others' creates; a single create (limited per key and address) may use the whole queue. The
// picture, with what a taken alias or code gets: docs/architecture.md#the-write-path.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { ShortCode } from '../core/codes.ts';
import { keyOf, linkKey } from '../core/domains.ts';
import { DEFAULT_WORKSPACE_ID, type Link, type LinkRequest } from '../core/link.ts';
import type { Inserted, NewLink } from '../db/links.ts';
import { AppError } from '../errors.ts';
import type { IdempotencyKey } from '../core/link.ts';

/** What the queue writes through (write/link-writes.ts). */
export interface QueueStore {
  /** Commits the links in one statement; says which were written. */
  insert(links: NewLink[]): Promise<Inserted>;
  /** `count` fresh generated codes. */
  allocate(count: number): Promise<ShortCode[]>;
  /** False while the database is known to be down (breaker open): refuse at once. */
  available(): boolean;
  /**
   * Called once per batch with its committed links, before their requests are answered (to fill
   * the caches and tell other instances); must not take long. A rejection is logged, and the links
   * are acknowledged all the same: they are committed.
   */
  committed(links: NewLink[]): Promise<void>;
  /**
   * How long after its batch is settled an alias may be confirmed to exist (201, or 409 for one
   * just taken), so that no instance can still take it for an impossible code (resolve/code-space.ts).
   */
  ackDelayMs(alias: string): number;
  /**
   * Called with the links a batch wrote whose Idempotency-Key a create on another instance took
   * meanwhile: nobody will ever be given their codes (both creates answer with the other's link),
   * so they are removed rather than left as links nobody made. A rejection is logged.
   */
  discard(links: NewLink[]): Promise<void>;
}

export interface QueueSettings {
  maxBatch: number;
  maxQueued: number;
  /** The most links of one workspace waiting in the queue at once (WRITE_QUEUE_WORKSPACE_SHARE); absent: no share. */
  workspaceMax?: number | undefined;
  /** Told of each batch about to be committed, with its size (metrics). */
  batched?: ((size: number) => void) | undefined;
  timeoutMs: number;
  log: Logger;
}

export type WriteQueueDeps = QueueStore & QueueSettings;

/** Who creates a link, in which workspace, and the Idempotency-Key it came with. */
export interface CreateOptions {
  readonly workspaceId: number;
  readonly ownerKeyId: number | null;
  readonly idempotency: IdempotencyKey | undefined;
  /**
   * Whether the workspace's share of the queue holds this link, and what it does past it: 'wait' for
   * room (an import's rows), or be 'refuse'd (a bulk's items). Absent: a single create, not held to it.
   */
  readonly share?: 'wait' | 'refuse' | undefined;
}

/**
 * The link was written, but its Idempotency-Key was taken meanwhile by a create with the same
 * key (on another instance): the answer is that create's, which the caller looks up.
 */
export class IdempotencyKeyTaken extends Error {
  override name = 'IdempotencyKeyTaken';
}

/** The default workspace, without a key. */
const ANONYMOUS: CreateOptions = { workspaceId: DEFAULT_WORKSPACE_ID, ownerKeyId: null, idempotency: undefined };

interface Pending {
  readonly request: LinkRequest;
  readonly options: CreateOptions;
  code: ShortCode | undefined;
  readonly deadline: number;
  readonly settle: PromiseWithResolvers<Link>;
}

const BACKOFF_MIN_MS = 50;
const BACKOFF_MAX_MS = 2000;

export class WriteQueue {
  readonly #store: QueueStore;
  readonly #deps: QueueSettings;
  #queue: Pending[] = [];
  #flushing: Promise<void> | null = null;
  #backoffMs = 0;
  #closing = false;
  /** Links of each workspace waiting in the queue (not yet taken into a batch). */
  readonly #held = new Map<number, number>();
  /** Creates waiting for room in their workspace's share, first come first served. */
  readonly #waiting = new Map<number, (() => void)[]>();

  constructor(store: QueueStore, settings: QueueSettings) {
    this.#store = store;
    this.#deps = settings;
  }

  /** Resolves with the committed link, or rejects with an AppError (409, 503). */
  enqueue(request: LinkRequest, options: CreateOptions = ANONYMOUS): Promise<Link> {
    if (this.#closing) return Promise.reject(new AppError('SHUTTING_DOWN'));
    if (this.#queue.length >= this.#deps.maxQueued) return Promise.reject(new AppError('WRITE_QUEUE_FULL'));
    if (!this.#store.available()) return Promise.reject(new AppError('DATABASE_UNAVAILABLE'));
    const { workspaceId } = options;
    const held = this.#held.get(workspaceId) ?? 0;
    if (options.share !== undefined && held >= (this.#deps.workspaceMax ?? Infinity)) {
      if (options.share === 'refuse') return Promise.reject(new AppError('WRITE_QUEUE_SHARE_FULL'));
      return this.#roomIn(workspaceId).then(() => this.enqueue(request, options));
    }
    this.#held.set(workspaceId, held + 1);
    const settle = Promise.withResolvers<Link>();
    this.#queue.push({ request, options, code: request.alias, deadline: Date.now() + this.#deps.timeoutMs, settle });
    this.#flushing ??= this.#drain();
    return settle.promise;
  }

  /** Resolves once a link of `workspaceId` leaves the queue (or the queue closes). */
  #roomIn(workspaceId: number): Promise<void> {
    const room = Promise.withResolvers<void>();
    const waiting = this.#waiting.get(workspaceId);
    if (waiting === undefined) this.#waiting.set(workspaceId, [room.resolve]);
    else waiting.push(room.resolve);
    return room.promise;
  }

  /** `item` is back in the queue (its generated code met an alias). */
  #rejoin(item: Pending): void {
    const { workspaceId } = item.options;
    this.#held.set(workspaceId, (this.#held.get(workspaceId) ?? 0) + 1);
  }

  /** `item` left the queue: taken into a batch, or expired. */
  #left(item: Pending): void {
    const { workspaceId } = item.options;
    const left = (this.#held.get(workspaceId) ?? 1) - 1;
    if (left > 0) this.#held.set(workspaceId, left);
    else this.#held.delete(workspaceId);
    const waiting = this.#waiting.get(workspaceId);
    if (waiting === undefined) return;
    const next = waiting.shift();
    if (waiting.length === 0) this.#waiting.delete(workspaceId);
    next?.();
  }

  get depth(): number {
    return this.#queue.length;
  }

  /** Nearly full: readiness should send traffic elsewhere. */
  get saturated(): boolean {
    return this.#queue.length >= this.#deps.maxQueued * 0.9;
  }

  /** Refuses new links, then waits until every queued one is committed or answered. */
  async close(): Promise<void> {
    this.#closing = true;
    // Those waiting for room are refused now (SHUTTING_DOWN), not after the queue drains.
    for (const waiting of this.#waiting.values()) for (const wake of waiting) wake();
    this.#waiting.clear();
    await this.#flushing;
  }

  async #drain(): Promise<void> {
    try {
      // Let the requests of this event-loop turn join the first batch.
      await new Promise(setImmediate);
      while (this.#queue.length > 0) {
        if (this.#backoffMs > 0) await sleep(this.#backoffMs * (0.5 + Math.random() / 2));
        this.#expire(Date.now());
        const batch = this.#takeBatch();
        if (batch.length > 0) await this.#commit(batch);
      }
    } finally {
      this.#flushing = null;
    }
  }

  async #commit(batch: Pending[]): Promise<void> {
    let links: NewLink[];
    let inserted: Inserted;
    try {
      await this.#assignCodes(batch);
      this.#deps.batched?.(batch.length);
      links = batch.map(linkOf);
      inserted = await this.#store.insert(links);
    } catch (err) {
      this.#fail(batch, err);
      return;
    }
    this.#backoffMs = 0;
    // Committed: from here on nothing may answer these links as a failure (a retry would create a second link).
    await this.#announce(links.filter((link) => inserted.written.has(keyOf(link))));
    const lost = this.#settle(batch, links, inserted);
    if (lost.length === 0) return;
    // The creates that lost their key are told only once their links are gone: each answers with
    // the winner's link, and by then its own is no longer counted anywhere.
    await this.#discard(lost.map(([, link]) => link));
    for (const [item, link] of lost) item.settle.reject(new IdempotencyKeyTaken(keyOf(link)));
  }

  async #announce(links: NewLink[]): Promise<void> {
    try {
      await this.#store.committed(links);
    } catch (err) {
      this.#deps.log.error({ err, links: links.length }, 'committed links could not be announced to the caches; acknowledged all the same');
    }
  }

  async #discard(links: NewLink[]): Promise<void> {
    try {
      await this.#store.discard(links);
    } catch (err) {
      this.#deps.log.error({ err, codes: links.map((link) => link.code) }, 'links whose Idempotency-Key was taken could not be removed');
    }
  }

  /** Answers the batch's creates but those whose Idempotency-Key was taken: they are returned, with their links. */
  #settle(batch: Pending[], links: NewLink[], { written, keyTaken }: Inserted): [Pending, NewLink][] {
    const retry: Pending[] = [];
    const lost: [Pending, NewLink][] = [];
    for (const [i, item] of batch.entries()) {
      const link = links[i] as NewLink;
      const alias = item.request.alias;
      const delayMs = alias === undefined ? 0 : this.#store.ackDelayMs(alias);
      const key = keyOf(link);
      if (keyTaken.has(key)) {
        lost.push([item, link]);
      } else if (written.has(key)) {
        settleAfter(delayMs, () => item.settle.resolve(link));
      } else if (alias !== undefined) {
        settleAfter(delayMs, () => item.settle.reject(new AppError('ALIAS_TAKEN')));
      } else {
        // The generated code met an alias someone chose: this link takes the next id.
        item.code = undefined;
        retry.push(item);
      }
    }
    for (const item of retry) this.#rejoin(item);
    if (retry.length > 0) this.#queue = retry.concat(this.#queue);
    return lost;
  }

  /** Nothing of the batch was committed: every link of it is refused. */
  #fail(batch: Pending[], err: unknown): void {
    const failure = err instanceof AppError ? err : new AppError('DATABASE_UNAVAILABLE', undefined, { cause: err });
    // The breaker reports database trouble once; anything else (a bug, codes exhausted) is worth a line per batch.
    const databaseTrouble = err instanceof AppError && (err.code === 'DATABASE_UNAVAILABLE' || err.code === 'DATABASE_TIMEOUT');
    if (!databaseTrouble) this.#deps.log.error({ err }, 'write batch failed');
    for (const item of batch) item.settle.reject(failure);
    this.#backoffMs = Math.min(BACKOFF_MAX_MS, Math.max(BACKOFF_MIN_MS, this.#backoffMs * 2));
  }

  /** Up to maxBatch links, each key at most once (an alias repeated on its domain waits for the next batch). */
  #takeBatch(): Pending[] {
    const batch: Pending[] = [];
    const later: Pending[] = [];
    const aliases = new Set<string>();
    let i = 0;
    for (; i < this.#queue.length && batch.length < this.#deps.maxBatch; i++) {
      const item = this.#queue[i] as Pending;
      const alias = item.request.alias;
      if (alias !== undefined) {
        const key = linkKey(item.request.domainId, alias);
        if (aliases.has(key)) {
          later.push(item);
          continue;
        }
        aliases.add(key);
      }
      batch.push(item);
    }
    this.#queue = later.concat(this.#queue.slice(i));
    for (const item of batch) this.#left(item);
    return batch;
  }

  async #assignCodes(batch: Pending[]): Promise<void> {
    const needing = batch.filter((item) => item.code === undefined);
    if (needing.length === 0) return;
    const taken = new Set(batch.map((item) => item.code).filter((code) => code !== undefined));
    let codes = await this.#store.allocate(needing.length);
    for (const item of needing) {
      let code = codes.pop();
      // A generated code equal to an alias of this very batch takes the next id too.
      while (code === undefined || taken.has(code)) {
        if (codes.length === 0) codes = await this.#store.allocate(1);
        code = codes.pop();
      }
      taken.add(code);
      item.code = code;
    }
  }

  #expire(now: number): void {
    if (this.#queue.every((item) => item.deadline > now)) return;
    const kept: Pending[] = [];
    for (const item of this.#queue) {
      if (item.deadline > now) kept.push(item);
      else {
        this.#left(item);
        item.settle.reject(new AppError('DATABASE_TIMEOUT'));
      }
    }
    this.#queue = kept;
  }
}

/** Settles at once, or after `delayMs` without holding up the flusher. */
function settleAfter(delayMs: number, settle: () => void): void {
  if (delayMs > 0) setTimeout(settle, delayMs);
  else settle();
}

function linkOf(item: Pending): NewLink {
  const { url, expiresAt, startsAt, alias, title, tags, options } = item.request;
  return {
    domainId: item.request.domainId,
    code: item.code as ShortCode,
    url,
    expiresAt,
    startsAt,
    disabled: false,
    safety: null,
    safetyList: null,
    deleted: false,
    version: 0,
    options,
    generated: alias === undefined,
    workspaceId: item.options.workspaceId,
    ownerKeyId: item.options.ownerKeyId,
    title,
    tags,
    idempotency: item.options.idempotency,
  };
}
