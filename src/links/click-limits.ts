// Click limits (link-options.ts clickLimit): a link gives at most its limit of redirects, across
// every instance. The redirects asked for in one event-loop turn are granted in one round trip: in
// Redis (one script per link, atomic there: never more than the limit, however many instances ask
// at once), or in Postgres when Redis is off (one statement; each link's row is locked by it).
// A grant that cannot be asked for is refused with the error (a 503): never a redirect past the limit.
// A deployment with Redis counts there alone (Postgres beside it would count apart); its counts
// have no TTL, and last as long as Redis keeps its data (run it with persistence: docs/api.md#link-options).

import type { LinkKey } from '../core/domains.ts';
import { splitKey } from '../core/domains.ts';
import type { DbBreaker } from '../db/breaker.ts';
import type { Queryable } from '../db/pool.ts';
import type { RedisClient } from '../redis/client.ts';
import type { LimitReached } from '../webhooks/delivery-store.ts';
import { LINK_EVENT_DATA, LINK_EVENT_HOST, outboxCtes } from '../db/outbox.ts';

/**
 * KEYS[1] the count; ARGV[1] the limit, ARGV[2] the redirects asked for. Returns how many are
 * given, and 1 if they used up the limit (else 0).
 */
export const GRANT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local grant = math.min(tonumber(ARGV[2]), tonumber(ARGV[1]) - used)
if grant <= 0 then return {0, 0} end
redis.call('INCRBY', KEYS[1], grant)
if used + grant >= tonumber(ARGV[1]) then return {grant, 1} end
return {grant, 0}
`;

/** Grants, and writes `link.click_limit_reached` for each link whose limit this grant used up, in the same statement. */
const GRANT_SQL = `
  WITH granted AS (
  INSERT INTO link_click_limits AS l (domain_id, code, used, asked, lim, last_grant)
  SELECT domain_id, code, LEAST(n, lim), n, lim, LEAST(n, lim)
  FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[]) AS w (domain_id, code, n, lim)
  ON CONFLICT (domain_id, code) DO UPDATE
  SET last_grant = GREATEST(LEAST(EXCLUDED.asked, EXCLUDED.lim - l.used), 0),
      used = l.used + GREATEST(LEAST(EXCLUDED.asked, EXCLUDED.lim - l.used), 0),
      asked = EXCLUDED.asked,
      lim = EXCLUDED.lim
  RETURNING l.domain_id, l.code, l.last_grant, l.used, l.lim
  ), reached AS (
    SELECT l.workspace_id, 'link.click_limit_reached' AS type, l.domain_id, l.code,
           ${LINK_EVENT_DATA} || ${LINK_EVENT_HOST} || jsonb_build_object('clickLimit', g.lim) AS data
    FROM granted g JOIN links l ON l.domain_id = g.domain_id AND l.code = g.code LEFT JOIN domains dm ON dm.id = l.domain_id
    WHERE g.last_grant > 0 AND g.used >= g.lim
  ), ${outboxCtes('reached')}
  SELECT domain_id, code, last_grant FROM granted`;

export type Backend =
  | {
      readonly redis: RedisClient;
      readonly prefix: string;
      /** Told of links whose limit a grant used up (webhooks/worker.ts writes their events). */
      readonly reached?: (links: LimitReached[]) => void;
    }
  | { readonly db: Queryable; readonly breaker: Pick<DbBreaker, 'run'> };

interface Asked {
  limit: number;
  waiting: ((granted: boolean) => void)[];
  failed: ((err: unknown) => void)[];
}

export class ClickLimits {
  readonly #backend: Backend;
  #turn = new Map<LinkKey, Asked>();
  #scheduled = false;

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  /** Whether one more redirect of `key` fits in `limit`; counted if so. */
  take(key: LinkKey, limit: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      let asked = this.#turn.get(key);
      if (asked === undefined) {
        asked = { limit, waiting: [], failed: [] };
        this.#turn.set(key, asked);
      }
      asked.waiting.push(resolve);
      asked.failed.push(reject);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(grantTurn, this);
      }
    });
  }

  /** Grants the turn's redirects, link by link, in the order they were asked for. */
  async grant(): Promise<void> {
    this.#scheduled = false;
    const turn = this.#turn;
    this.#turn = new Map();
    let granted: Map<LinkKey, number>;
    try {
      granted = await this.#ask(turn);
    } catch (err) {
      for (const asked of turn.values()) for (const fail of asked.failed) fail(err);
      return;
    }
    for (const [key, asked] of turn) {
      const n = granted.get(key) ?? 0;
      asked.waiting.forEach((resolve, i) => resolve(i < n));
    }
  }

  /**
   * The redirects counted so far against the limits of the links `keys` name, in one round trip
   * (for the API's clicksUsed); a link never clicked is left out.
   */
  async used(keys: readonly LinkKey[]): Promise<Map<LinkKey, number>> {
    const counts = new Map<LinkKey, number>();
    if (keys.length === 0) return counts;
    const backend = this.#backend;
    if ('redis' in backend) {
      const names = keys.map((key) => `${backend.prefix}limit:${key}`);
      // A cluster's keys are on several nodes: no MGET across them.
      const values = backend.redis.isCluster
        ? await Promise.all(names.map((name) => backend.redis.get(name)))
        : await backend.redis.mget(names);
      keys.forEach((key, i) => {
        const value = values[i];
        if (value !== null && value !== undefined) counts.set(key, Number(value));
      });
      return counts;
    }
    const parts = keys.map((key) => splitKey(key));
    const { rows } = await backend.breaker.run(() =>
      backend.db.query<{ domain_id: string; code: string; used: string }>(
        `SELECT c.domain_id, c.code, c.used FROM unnest($1::bigint[], $2::text[]) AS w (domain_id, code)
         JOIN link_click_limits c USING (domain_id, code)`,
        [parts.map((p) => p.domainId), parts.map((p) => p.code)],
      ),
    );
    const byPart = new Map(rows.map((row) => [`${row.domain_id} ${row.code}`, Number(row.used)]));
    keys.forEach((key, i) => {
      const used = byPart.get(`${parts[i]?.domainId} ${parts[i]?.code}`);
      if (used !== undefined) counts.set(key, used);
    });
    return counts;
  }

  async #ask(turn: Map<LinkKey, Asked>): Promise<Map<LinkKey, number>> {
    const keys = [...turn.keys()];
    const backend = this.#backend;
    if ('redis' in backend) {
      const pipeline = backend.redis.pipeline();
      for (const key of keys) {
        const asked = turn.get(key) as Asked;
        pipeline.eval(GRANT, 1, `${backend.prefix}limit:${key}`, asked.limit, asked.waiting.length);
      }
      const replies = (await pipeline.exec()) ?? [];
      const reached: LimitReached[] = [];
      const granted = new Map(
        keys.map((key, i) => {
          const [error, result] = replies[i] ?? [new Error('no reply'), [0, 0]];
          if (error !== null) throw error;
          const [grant, usedUp] = result as [number, number];
          if (usedUp === 1) reached.push({ ...splitKey(key), limit: (turn.get(key) as Asked).limit });
          return [key, grant];
        }),
      );
      if (reached.length > 0) backend.reached?.(reached);
      return granted;
    }
    const parts = keys.map((key) => splitKey(key));
    const { rows } = await backend.breaker.run(() =>
      backend.db.query<{ domain_id: string; code: string; last_grant: string }>(GRANT_SQL, [
        parts.map((p) => p.domainId),
        parts.map((p) => p.code),
        keys.map((key) => (turn.get(key) as Asked).waiting.length),
        keys.map((key) => (turn.get(key) as Asked).limit),
      ]),
    );
    const byPart = new Map(rows.map((row) => [`${row.domain_id} ${row.code}`, Number(row.last_grant)]));
    return new Map(keys.map((key, i) => [key, byPart.get(`${parts[i]?.domainId} ${parts[i]?.code}`) ?? 0]));
  }
}

function grantTurn(limits: ClickLimits): void {
  void limits.grant();
}
