// The keys and sessions of the API and the dashboard, as the routes and the authentication hook use
// them: every statement on the auth pool and through its breaker (db/plugin.ts: a flood of made-up
// keys never takes the connections, or opens the breaker, of redirects and creates; a failure is a
// fast 503, never a hang). The
// statements themselves are api-keys.ts's and sessions.ts's, which the command-line tools use directly.

import type pg from 'pg';
import { recordAudit, type Actor } from '../audit/audit.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { inTransaction, type Queryable } from '../db/pool.ts';
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
import {
  closePersonSessions,
  closeSession,
  findSession,
  moveSession,
  openSession,
  personSessions,
  sessionPerson,
  type OpenedSession,
  type PersonSession,
  type Session,
  type SessionHolder,
  type SessionPerson,
} from './sessions.ts';

export class AuthStore {
  readonly #db: Queryable;
  readonly #breaker: DbBreaker;
  readonly #idleMs: number;
  readonly #pool: pg.Pool;

  /** `idleMs`: how long a person's session lasts without a request (SESSION_IDLE_MINUTES); `pool`: the one `db` queries, for transactions. */
  constructor(db: Queryable, breaker: DbBreaker, idleMs: number, pool: pg.Pool) {
    this.#db = db;
    this.#breaker = breaker;
    this.#idleMs = idleMs;
    this.#pool = pool;
  }

  /** The API keys of a workspace (of one person, with `personId`), revoked ones included, oldest first. */
  keys(workspaceId: number, personId?: number): Promise<ApiKeyInfo[]> {
    return this.#breaker.run(() => listApiKeys(this.#db, workspaceId, personId));
  }

  /** Creates a key, and its audit entry in the same transaction. */
  createKey(key: NewKey, actor: Actor): Promise<CreatedKey> {
    return this.#breaker.run(() =>
      inTransaction(this.#pool, async (db) => {
        const made = await createApiKey(db, key);
        await recordAudit(db, actor, {
          workspaceId: made.workspaceId,
          action: 'key.create',
          targetType: 'key',
          targetId: made.id,
          after: { name: made.name, role: made.role, kind: made.kind },
        });
        return made;
      }),
    );
  }

  /**
   * Revokes API key `id` of the workspace (with `personId`: only if it is that person's), unless it is
   * its last active admin key; a key a membership acts through is not an API key ('not-found'). Audited.
   */
  revokeKey(id: number, workspaceId: number, actor: Actor, personId?: number): Promise<RevokeOutcome> {
    return this.#breaker.run(() =>
      inTransaction(
        this.#pool,
        async (db) => {
          const { rows } = await db.query<{ name: string; role: string; kind: string; person_id: string | null }>(
            'SELECT name, role, kind, person_id FROM api_keys WHERE id = $1 AND workspace_id = $2 AND revoked_at IS NULL',
            [id, workspaceId],
          );
          const key = rows[0];
          if (key === undefined || key.kind === 'member' || (personId !== undefined && Number(key.person_id) !== personId))
            return 'not-found';
          const outcome = await revokeApiKey(db, id, workspaceId);
          if (outcome === 'revoked') {
            await recordAudit(db, actor, {
              workspaceId,
              action: 'key.revoke',
              targetType: 'key',
              targetId: id,
              before: { name: key.name, role: key.role },
            });
          }
          return outcome;
        },
        (outcome) => outcome === 'revoked',
      ),
    );
  }

  /** The active key whose secret this is, or undefined. */
  activeKey(secret: string): Promise<Principal | undefined> {
    const hash = hashSecret(secret);
    return this.#breaker.run(() => findActiveKey(this.#db, hash));
  }

  /** Opens a session; `closed`: the hashes of the key's oldest sessions it closed to keep `maxPerKey`. */
  openSession(
    key: Pick<Principal, 'id' | 'workspaceId'>,
    ttlMs: number,
    maxPerKey: number,
    holder?: SessionHolder,
  ): Promise<OpenedSession & { closed: Buffer[] }> {
    return this.#breaker.run(() => openSession(this.#db, key, ttlMs, maxPerKey, holder));
  }

  /** The live session of `token`, or undefined. */
  session(token: string): Promise<Session | undefined> {
    return this.#breaker.run(() => findSession(this.#db, token, this.#idleMs));
  }

  closeSession(token: string): Promise<void> {
    return this.#breaker.run(() => closeSession(this.#db, token));
  }

  /** Who a person's session is for, and their workspaces. */
  sessionPerson(personId: number): Promise<SessionPerson | undefined> {
    return this.#breaker.run(() => sessionPerson(this.#db, personId));
  }

  personSessions(personId: number): Promise<PersonSession[]> {
    return this.#breaker.run(() => personSessions(this.#db, personId, this.#idleMs));
  }

  /** Closes the person's session `publicId`, or all but `except`; the hashes closed. */
  closePersonSessions(personId: number, which: { publicId: string } | { except: Buffer | null }): Promise<Buffer[]> {
    return this.#breaker.run(() => closePersonSessions(this.#db, personId, which));
  }

  moveSession(token: string, personId: number, keyId: number): Promise<boolean> {
    return this.#breaker.run(() => moveSession(this.#db, token, personId, keyId));
  }
}
