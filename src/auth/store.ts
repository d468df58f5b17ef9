// The keys and sessions of the API and the dashboard, as the routes and the authentication hook use
// them: every statement on the auth pool and through its breaker (db/plugin.ts: a flood of made-up
// keys never takes the connections, or opens the breaker, of redirects and creates; a failure is a
// fast 503, never a hang). The
// statements themselves are api-keys.ts's and sessions.ts's, which the command-line tools use directly.

import type { DbBreaker } from '../db/breaker.ts';
import type { Queryable } from '../db/pool.ts';
import {
  createApiKey,
  findActiveKey,
  hashSecret,
  listApiKeys,
  revokeApiKey,
  type ApiKeyInfo,
  type CreatedKey,
  type NewKey,
  type RevokeOutcome,
} from './api-keys.ts';
import type { Principal } from './roles.ts';
import { closeSession, findSession, openSession, type OpenedSession, type Session } from './sessions.ts';

export class AuthStore {
  readonly #db: Queryable;
  readonly #breaker: DbBreaker;

  constructor(db: Queryable, breaker: DbBreaker) {
    this.#db = db;
    this.#breaker = breaker;
  }

  /** The keys of a workspace, revoked ones included, oldest first. */
  keys(workspaceId: number): Promise<ApiKeyInfo[]> {
    return this.#breaker.run(() => listApiKeys(this.#db, workspaceId));
  }

  createKey(key: NewKey): Promise<CreatedKey> {
    return this.#breaker.run(() => createApiKey(this.#db, key));
  }

  /** Revokes key `id` of the workspace, unless it is its last active admin key. */
  revokeKey(id: number, workspaceId: number): Promise<RevokeOutcome> {
    return this.#breaker.run(() => revokeApiKey(this.#db, id, workspaceId));
  }

  /** The active key whose secret this is, or undefined. */
  activeKey(secret: string): Promise<Principal | undefined> {
    const hash = hashSecret(secret);
    return this.#breaker.run(() => findActiveKey(this.#db, hash));
  }

  /** Opens a session; `closed`: the hashes of the key's oldest sessions it closed to keep `maxPerKey`. */
  openSession(key: Pick<Principal, 'id' | 'workspaceId'>, ttlMs: number, maxPerKey: number): Promise<OpenedSession & { closed: Buffer[] }> {
    return this.#breaker.run(() => openSession(this.#db, key, ttlMs, maxPerKey));
  }

  /** The live session of `token`, or undefined. */
  session(token: string): Promise<Session | undefined> {
    return this.#breaker.run(() => findSession(this.#db, token));
  }

  closeSession(token: string): Promise<void> {
    return this.#breaker.run(() => closeSession(this.#db, token));
  }
}
