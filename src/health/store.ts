// Target health in Postgres (migrations/0022_target_health.sql): the enrolment of links, the claim
// of due probes under the deployment's rate budget and per-host leases, the record of their results
// with the events they cause (through the outbox, in the same transaction). A link's health as the
// API reads it: link-health-store.ts. The worker runs these on its own pool connections, not through the breaker: a
// background round that fails only waits for the next.

import type pg from 'pg';
import { HISTORY_MAX, nextHealth, nextProbeDelayMs, probeHost, resultOk, resultText, type ProbeResult } from '../core/target-health.ts';
import { LINK_EVENT_DATA, LINK_EVENT_HOST, outboxCtes } from '../db/outbox.ts';
import { inTransaction, type Queryable } from '../db/pool.ts';

/** A link whose probe this instance claimed. */
export interface ClaimedProbe {
  readonly domainId: number;
  readonly code: string;
  readonly url: string;
  readonly host: string;
}

export interface ProbeRecord {
  readonly domainId: number;
  readonly code: string;
  readonly host: string;
  readonly result: ProbeResult;
  readonly latencyMs: number;
}

export interface ClaimOptions {
  /** Links claimed at most (this instance's room). */
  readonly max: number;
  /** HEALTH_PROBE_RATE: the deployment's probes per second. */
  readonly rate: number;
  /** How long a claim holds a link and its host: longer than any probe. */
  readonly leaseMs: number;
  /** When a link that cannot be probed (disabled, deleted, blocked by a blocklist, not http(s)) is looked at again. */
  readonly intervalMs: number;
}

export interface RecordOptions {
  readonly intervalMs: number;
  readonly brokenAfter: number;
}

/** Links enrolled per round at most. */
export const ENROL_BATCH = 1000;

/**
 * Gives the next ENROL_BATCH links after the walk's cursor, in (domain_id, code) order, a
 * link_health row due now (those that have one keep it), and moves the cursor past them; at the
 * end of the table it starts again from the beginning. A new link is enrolled when the walk next
 * passes it: within (links / ENROL_BATCH) rounds. Returns how many were new.
 */
export async function enrol(pool: pg.Pool, batch = ENROL_BATCH): Promise<number> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ domain_id: string; code: string }>(
      'SELECT domain_id, code FROM health_sweep WHERE id FOR UPDATE SKIP LOCKED',
    );
    const cursor = rows[0];
    // Another instance is walking: this round's share is done by it.
    if (cursor === undefined) return 0;
    const walked = await client.query<{ last_domain: string | null; last_code: string | null; seen: string; added: string }>(
      `WITH next AS (
         SELECT l.domain_id, l.code FROM links l WHERE (l.domain_id, l.code) > ($1::bigint, $2::text COLLATE "C")
         ORDER BY l.domain_id, l.code LIMIT $3
       ), added AS (
         INSERT INTO link_health (domain_id, code) SELECT domain_id, code FROM next ON CONFLICT DO NOTHING RETURNING 1
       ), last AS (SELECT domain_id, code FROM next ORDER BY domain_id DESC, code DESC LIMIT 1)
       SELECT (SELECT domain_id FROM last) AS last_domain, (SELECT code FROM last) AS last_code,
              (SELECT count(*) FROM next) AS seen, (SELECT count(*) FROM added) AS added`,
      [cursor.domain_id, cursor.code, batch],
    );
    const row = walked.rows[0];
    const full = Number(row?.seen ?? 0) >= batch;
    await client.query('UPDATE health_sweep SET domain_id = $1, code = $2 WHERE id', [
      full ? row?.last_domain : -1,
      full ? row?.last_code : '',
    ]);
    return Number(row?.added ?? 0);
  });
}

interface DueRow {
  domain_id: string;
  code: string;
  url: string;
  idle: boolean;
}

/**
 * Claims due links to probe: as many as the deployment's budget allows now (HEALTH_PROBE_RATE a
 * second, shared by every instance under health_sweep's lock), at most one per host, and only hosts
 * no probe is under way to anywhere (health_hosts). Each claimed link is due again after the lease,
 * in case this instance dies before recording it.
 */
export async function claimProbes(pool: pg.Pool, options: ClaimOptions): Promise<ClaimedProbe[]> {
  return inTransaction(pool, async (client) => {
    const budget = await client.query<{ tokens: number; elapsed: number }>(
      'SELECT tokens, extract(epoch FROM clock_timestamp() - refilled_at)::float8 AS elapsed FROM health_sweep WHERE id FOR UPDATE',
    );
    const row = budget.rows[0];
    if (row === undefined) return [];
    // Up to one second's worth saved: a quiet minute does not become a burst.
    const available = Math.min(options.rate, row.tokens + options.rate * Math.max(row.elapsed, 0));
    const want = Math.min(Math.floor(available), options.max);
    let claimed: ClaimedProbe[] = [];
    if (want > 0) claimed = await claimDue(client, want, options);
    await client.query('UPDATE health_sweep SET tokens = $1, refilled_at = clock_timestamp() WHERE id', [available - claimed.length]);
    return claimed;
  });
}

/**
 * A due link whose host is taken (by another link of this claim, or by a probe under way) waits this
 * long at most, spread at random: a backlog of one host's links would otherwise stay at the head of
 * the due order and fill every claim's window, so that other hosts' links waited behind it.
 */
export const HOST_BUSY_DEFER_MS = 60_000;

/** Moves the links' next probe to `ms` from now, or to a random time up to `ms` from now. */
async function postpone(client: pg.PoolClient, links: readonly { domainId: number; code: string }[], ms: number, spread: boolean) {
  if (links.length === 0) return;
  await client.query(
    `UPDATE link_health h SET next_probe_at = now() + (CASE WHEN $4 THEN 1000 + random() * ($3 - 1000) ELSE $3 END) * interval '1 millisecond'
     FROM unnest($1::bigint[], $2::text[]) AS r (domain_id, code) WHERE h.domain_id = r.domain_id AND h.code = r.code`,
    [links.map((link) => link.domainId), links.map((link) => link.code), ms, spread],
  );
}

async function claimDue(client: pg.PoolClient, want: number, options: ClaimOptions): Promise<ClaimedProbe[]> {
  // More than wanted: some share a host, some cannot be probed.
  const { rows } = await client.query<DueRow>(
    `SELECT h.domain_id, h.code, l.url, (l.deleted OR l.disabled OR l.safety = 'blocked') AS idle
     FROM link_health h JOIN links l ON l.domain_id = h.domain_id AND l.code = h.code
     WHERE h.probes AND h.next_probe_at <= now()
     ORDER BY h.next_probe_at LIMIT $1 FOR UPDATE OF h SKIP LOCKED`,
    [want * 4],
  );
  const candidates = new Map<string, ClaimedProbe>();
  const idle: ClaimedProbe[] = [];
  const sameHost: ClaimedProbe[] = [];
  for (const row of rows) {
    const host = probeHost(row.url);
    const link = { domainId: Number(row.domain_id), code: row.code, url: row.url, host: host ?? '' };
    if (row.idle || host === undefined) idle.push(link);
    else if (candidates.has(host)) sameHost.push(link);
    else if (candidates.size < want) candidates.set(host, link);
  }
  await postpone(client, idle, options.intervalMs, false);
  // A host leased by a probe under way elsewhere is skipped: ON CONFLICT waits for a concurrent claim of it, then sees it busy.
  const leased =
    candidates.size === 0
      ? new Set<string>()
      : new Set(
          (
            await client.query<{ host: string }>(
              `INSERT INTO health_hosts AS x (host, busy_until) SELECT host, now() + $2 * interval '1 millisecond' FROM unnest($1::text[]) AS host
               ON CONFLICT (host) DO UPDATE SET busy_until = EXCLUDED.busy_until WHERE x.busy_until <= now()
               RETURNING host`,
              [[...candidates.keys()], options.leaseMs],
            )
          ).rows.map((row) => row.host),
        );
  const claimed = [...candidates.values()].filter((link) => leased.has(link.host));
  const busy = [...candidates.values()].filter((link) => !leased.has(link.host));
  await postpone(client, [...sameHost, ...busy], HOST_BUSY_DEFER_MS, true);
  await postpone(client, claimed, options.leaseMs, false);
  return claimed;
}

/**
 * Records probes: each link's state moves by core/target-health.ts nextHealth, its history gains the
 * probe (HISTORY_MAX kept), `link.target_broken` / `link.target_recovered` go to the outbox for the
 * links that became broken or recovered, and the hosts' leases end; all in one transaction, so an
 * event is written exactly when its change is.
 */
export async function recordProbes(pool: pg.Pool, records: readonly ProbeRecord[], options: RecordOptions): Promise<void> {
  if (records.length === 0) return;
  await inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ domain_id: string; code: string; failures: number; broken: boolean }>(
      `SELECT h.domain_id, h.code, h.failures, h.broken FROM link_health h
       JOIN unnest($1::bigint[], $2::text[]) AS r (domain_id, code) ON h.domain_id = r.domain_id AND h.code = r.code
       FOR UPDATE OF h`,
      [records.map((record) => record.domainId), records.map((record) => record.code)],
    );
    const states = new Map(rows.map((row) => [`${row.domain_id}/${row.code}`, row]));
    const kept = records.filter((record) => states.has(`${record.domainId}/${record.code}`));
    const steps = kept.map((record) => {
      const state = states.get(`${record.domainId}/${record.code}`) as { failures: number; broken: boolean };
      const ok = resultOk(record.result);
      const step = nextHealth(state, ok, options.brokenAfter);
      const delay = nextProbeDelayMs(step, options.intervalMs, options.brokenAfter, Math.random());
      return { record, ok, step, delay, status: resultText(record.result) };
    });
    const column = <T>(pick: (step: (typeof steps)[number]) => T) => steps.map(pick);
    await client.query(
      `WITH r AS (
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::boolean[], $5::int[], $6::boolean[], $7::bigint[], $8::int[], $9::text[])
           AS r (domain_id, code, status, ok, failures, broken, delay, latency, event)
       ), changed AS (
         UPDATE link_health h SET last_status = r.status, last_checked = now(), failures = r.failures, broken = r.broken,
           broken_since = CASE WHEN NOT r.broken THEN NULL WHEN h.broken THEN h.broken_since ELSE now() END,
           next_probe_at = now() + r.delay * interval '1 millisecond'
         FROM r WHERE h.domain_id = r.domain_id AND h.code = r.code
       ), probed AS (
         INSERT INTO link_health_probes (domain_id, code, at, status, ok, latency_ms)
         SELECT domain_id, code, now(), status, ok, latency FROM r
       ), events AS (
         SELECT l.workspace_id, r.event AS type, l.domain_id, l.code,
                ${LINK_EVENT_DATA} || ${LINK_EVENT_HOST} ||
                jsonb_build_object('health', jsonb_build_object('status', r.status, 'failures', r.failures, 'checkedAt', now())) AS data
         FROM r JOIN links l ON l.domain_id = r.domain_id AND l.code = r.code LEFT JOIN domains dm ON dm.id = l.domain_id
         WHERE r.event IS NOT NULL
       ), ${outboxCtes('events')}
       SELECT 1`,
      [
        column((s) => s.record.domainId),
        column((s) => s.record.code),
        column((s) => s.status),
        column((s) => s.ok),
        column((s) => s.step.failures),
        column((s) => s.step.broken),
        column((s) => s.delay),
        column((s) => s.record.latencyMs),
        column((s) => s.step.event),
      ],
    );
    // The new probe is in the table now: older than the HISTORY_MAX newest go.
    await client.query(
      `DELETE FROM link_health_probes p USING unnest($1::bigint[], $2::text[]) AS r (domain_id, code)
       WHERE p.domain_id = r.domain_id AND p.code = r.code AND p.at < (
         SELECT q.at FROM link_health_probes q WHERE q.domain_id = r.domain_id AND q.code = r.code
         ORDER BY q.at DESC OFFSET ${HISTORY_MAX - 1} LIMIT 1)`,
      [column((s) => s.record.domainId), column((s) => s.record.code)],
    );
  });
  await releaseHosts(
    pool,
    records.map((record) => record.host),
  );
}

/** Ends the leases of hosts whose probes are over (or were never made). */
export async function releaseHosts(db: Queryable, hosts: readonly string[]): Promise<void> {
  if (hosts.length > 0) await db.query('DELETE FROM health_hosts WHERE host = ANY ($1::text[])', [hosts]);
}
