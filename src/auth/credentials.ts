// What a presented API key or session token is, at the least cost to the database. Answers are
// remembered ANSWER_MS (a revocation on another instance takes effect within that); identical
// look-ups in flight share one query; and a look-up of a credential this instance has not seen
// good within GOOD_MS first spends one of its client's CREDENTIAL_LOOKUPS_PER_MINUTE, so a flood of
// made-up keys or cookies from one address costs at most that many queries a minute, then a 429
// before any. The queries run on the auth pool and breaker (db/plugin.ts), never on those of
// redirects and creates. docs/security.md#api-keys.

import { LRUCache } from 'lru-cache';
import { upTo } from '../cache/bounded.ts';
import { AttemptBudget } from '../api/attempt-budget.ts';
import type { Counter } from '../api/counters.ts';
import { hashSecret, KEY_SHAPE } from './api-keys.ts';
import type { Principal } from './roles.ts';
import { SESSION_TOKEN_SHAPE, type Session } from './sessions.ts';
import type { AuthStore } from './store.ts';

/** How long an answer (good or bad) stands on this instance. */
const ANSWER_MS = 10_000;
/** How long a credential seen good is looked up again without spending its client's budget. */
const GOOD_MS = 3_600_000;
const REMEMBERED_MAX = 10_000;
const BUDGET_WINDOW_MS = 60_000;

/** A look-up's outcome: what it found (false: nothing good), or how long its client must wait. */
export type Lookup<T> = { found: T | false } | { retryAfterMs: number };

/** The per-client budget of look-ups: 0 if this one may go ahead, else ms until the client may try again. */
export type Budget = (client: string) => Promise<number>;

/** A budget of `perMinute` look-ups per client, counted by `counter`; null for no limit (0). */
export function lookupBudget(counter: Counter, perMinute: number): Budget | null {
  if (perMinute === 0) return null;
  // Reserved before the look-up (AttemptBudget): concurrent look-ups from one client cannot all see room that only one has.
  const budget = new AttemptBudget(counter, perMinute, BUDGET_WINDOW_MS);
  return async (client) => {
    const reserved = await budget.take(client);
    return reserved.ok ? 0 : reserved.retryAfterSeconds * 1000;
  };
}

/** Remembered answers, known-good ids and look-ups in flight for one kind of credential, by id (a hash). */
class Remembered<T> {
  readonly #answers = new LRUCache<string, { value: T | false }>({ ...upTo(REMEMBERED_MAX), ttl: ANSWER_MS });
  readonly #good = new LRUCache<string, true>({ ...upTo(REMEMBERED_MAX), ttl: GOOD_MS });
  readonly #inFlight = new Map<string, Promise<Lookup<T>>>();
  readonly #budget: Budget | null;

  constructor(budget: Budget | null) {
    this.#budget = budget;
  }

  lookUp(id: string, client: string, find: () => Promise<T | undefined>): Promise<Lookup<T>> {
    const answer = this.#answers.get(id);
    if (answer !== undefined) return Promise.resolve({ found: answer.value });
    let flight = this.#inFlight.get(id);
    if (flight === undefined) {
      flight = this.#fly(id, client, find).finally(() => this.#inFlight.delete(id));
      this.#inFlight.set(id, flight);
    }
    return flight;
  }

  async #fly(id: string, client: string, find: () => Promise<T | undefined>): Promise<Lookup<T>> {
    if (this.#budget !== null && !this.#good.has(id)) {
      const retryAfterMs = await this.#budget(client);
      if (retryAfterMs > 0) return { retryAfterMs };
    }
    const value = (await find()) ?? false;
    this.#answers.set(id, { value });
    if (value === false) this.#good.delete(id);
    else this.#good.set(id, true);
    return { found: value };
  }

  forget(id: string): void {
    this.#answers.delete(id);
  }

  clear(): void {
    this.#answers.clear();
  }
}

/** The id of a secret in what is remembered, and in the database: its SHA-256. */
const idOf = (secret: string): string => hashSecret(secret).toString('base64');

export class Credentials {
  readonly #store: Pick<AuthStore, 'activeKey' | 'session'>;
  readonly #keys: Remembered<Principal>;
  readonly #sessions: Remembered<Session>;

  constructor(store: Pick<AuthStore, 'activeKey' | 'session'>, budget: Budget | null) {
    this.#store = store;
    this.#keys = new Remembered(budget);
    this.#sessions = new Remembered(budget);
  }

  /** The active key whose secret this is; a malformed secret costs nothing. */
  key(secret: string, client: string): Promise<Lookup<Principal>> {
    if (!KEY_SHAPE.test(secret)) return Promise.resolve({ found: false });
    return this.#keys.lookUp(idOf(secret), client, () => this.#store.activeKey(secret));
  }

  /** The live session of a token (its expiry is the caller's to check); a malformed token costs nothing. */
  session(token: string, client: string): Promise<Lookup<Session>> {
    if (!SESSION_TOKEN_SHAPE.test(token)) return Promise.resolve({ found: false });
    return this.#sessions.lookUp(idOf(token), client, () => this.#store.session(token));
  }

  /** Forgets a session on this instance at once (signed out). */
  forgetSession(token: string): void {
    this.#sessions.forget(idOf(token));
  }

  /** Forgets sessions by their stored hashes (closed to keep a key's sessions bounded). */
  forgetSessionHashes(hashes: readonly Buffer[]): void {
    for (const hash of hashes) this.#sessions.forget(hash.toString('base64'));
  }

  /** Forgets every key and session answer (a key was revoked here). */
  forgetAll(): void {
    this.#keys.clear();
    this.#sessions.clear();
  }
}
