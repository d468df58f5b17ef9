// The statements behind abuse reports (migrations/0024_abuse_reports.sql): the link a report names,
// a new report, the queue (a link's reports of one status grouped, with their count), and closing a
// link's open reports with the operator's action. No client address is written here or anywhere.

import type { ShortCode } from '../core/codes.ts';
import type { DbBreaker } from '../db/breaker.ts';
import type { Queryable } from '../db/pool.ts';

import type { ReportAction, ReportReason, ReportStatus } from './reports.ts';

export { REPORT_ACTIONS, REPORT_REASONS, REPORT_STATUSES, type ReportAction, type ReportReason, type ReportStatus } from './reports.ts';

/** A link a report may name: live (not deleted), with its workspace and target. */
export interface ReportedLink {
  readonly domainId: number;
  readonly code: ShortCode;
  readonly workspaceId: number;
  readonly url: string;
}

/** The link `code` on domain `domainId`, or undefined for none (or a deleted one). */
export async function reportedLink(db: Queryable, domainId: number, code: string): Promise<ReportedLink | undefined> {
  const { rows } = await db.query<{ workspace_id: string; url: string; code: ShortCode }>(
    'SELECT workspace_id, url, code FROM links WHERE domain_id = $1 AND code = $2 AND NOT deleted',
    [domainId, code],
  );
  const row = rows[0];
  return row === undefined ? undefined : { domainId, code: row.code, workspaceId: Number(row.workspace_id), url: row.url };
}

export interface NewReport {
  readonly domainId: number;
  readonly code: string;
  readonly reason: ReportReason;
  readonly message: string | null;
  readonly email: string | null;
}

export async function addReport(db: Queryable, report: NewReport): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO abuse_reports (domain_id, code, reason, message, reporter_email) VALUES ($1, $2, $3, $4, $5) RETURNING id',
    [report.domainId, report.code, report.reason, report.message, report.email],
  );
  return Number(rows[0]?.id);
}

/** One entry of a group: what a reporter said (their email only if they gave one). */
export interface ReportNote {
  readonly id: number;
  readonly reason: ReportReason;
  readonly message: string | null;
  readonly email: string | null;
  readonly createdAt: Date;
}

/** A link's reports of one status, as the queue shows them. */
export interface ReportGroup {
  /** The newest report's id: acting on it acts on the whole group. */
  readonly id: number;
  readonly domainId: number;
  readonly code: string;
  readonly status: ReportStatus;
  readonly count: number;
  readonly reasons: ReportReason[];
  readonly firstAt: Date;
  readonly lastAt: Date;
  /** The link now (null: deleted since). */
  readonly link: {
    readonly url: string;
    readonly disabled: boolean;
    readonly safety: string | null;
    readonly safetyList: string | null;
    readonly workspace: { readonly id: number; readonly name: string; readonly suspended: boolean };
  } | null;
  readonly action: ReportAction | null;
  readonly handledAt: Date | null;
  /** The newest NOTES_MAX reports' words. */
  readonly notes: ReportNote[];
}

const NOTES_MAX = 5;

interface GroupRow {
  id: string;
  domain_id: string;
  code: string;
  status: ReportStatus;
  count: string;
  reasons: ReportReason[];
  first_at: Date;
  last_at: Date;
  url: string | null;
  disabled: boolean | null;
  safety: string | null;
  safety_list: string | null;
  workspace_id: string | null;
  workspace_name: string | null;
  suspended: boolean | null;
  action: ReportAction | null;
  handled_at: Date | null;
  notes: { id: number; reason: ReportReason; message: string | null; email: string | null; created_at: string }[];
}

/**
 * Up to `limit` groups of reports of `status`, the most reported first, then the newest: one row
 * a link, its reasons, its newest notes, and the link and its workspace as they are now.
 */
export async function reportGroups(db: Queryable, status: ReportStatus, limit: number): Promise<ReportGroup[]> {
  const { rows } = await db.query<GroupRow>(
    `WITH g AS (
       SELECT domain_id, code, max(id) AS id, count(*) AS count, array_agg(DISTINCT reason ORDER BY reason) AS reasons,
              min(created_at) AS first_at, max(created_at) AS last_at, max(action) AS action, max(handled_at) AS handled_at
       FROM abuse_reports WHERE status = $1 GROUP BY domain_id, code
       ORDER BY count(*) DESC, max(created_at) DESC LIMIT $2
     )
     SELECT g.*, $1 AS status, l.url, l.disabled, l.safety, l.safety_list, w.id AS workspace_id, w.name AS workspace_name,
            w.suspended_at IS NOT NULL AS suspended,
            (SELECT coalesce(jsonb_agg(n ORDER BY n.id DESC), '[]') FROM (
               SELECT r.id, r.reason, r.message, r.reporter_email AS email, r.created_at FROM abuse_reports r
               WHERE r.domain_id = g.domain_id AND r.code = g.code AND r.status = $1 ORDER BY r.id DESC LIMIT ${NOTES_MAX}
             ) n) AS notes
     FROM g LEFT JOIN links l ON l.domain_id = g.domain_id AND l.code = g.code AND NOT l.deleted
     LEFT JOIN workspaces w ON w.id = l.workspace_id
     ORDER BY g.count DESC, g.last_at DESC`,
    [status, limit],
  );
  return rows.map(groupOf);
}

function groupOf(row: GroupRow): ReportGroup {
  return {
    id: Number(row.id),
    domainId: Number(row.domain_id),
    code: row.code,
    status: row.status,
    count: Number(row.count),
    reasons: row.reasons,
    firstAt: row.first_at,
    lastAt: row.last_at,
    link:
      row.url === null
        ? null
        : {
            url: row.url,
            disabled: row.disabled === true,
            safety: row.safety,
            safetyList: row.safety_list,
            workspace: { id: Number(row.workspace_id), name: row.workspace_name ?? '', suspended: row.suspended === true },
          },
    action: row.action,
    handledAt: row.handled_at,
    notes: row.notes.map((n) => ({ id: n.id, reason: n.reason, message: n.message, email: n.email, createdAt: new Date(n.created_at) })),
  };
}

/** The report `id` and the link it names now (undefined: no such report). */
export async function reportById(
  db: Queryable,
  id: number,
): Promise<{ domainId: number; code: ShortCode; status: ReportStatus; link: ReportedLink | undefined } | undefined> {
  const { rows } = await db.query<{
    domain_id: string;
    code: ShortCode;
    status: ReportStatus;
    workspace_id: string | null;
    url: string | null;
  }>(
    `SELECT r.domain_id, r.code, r.status, l.workspace_id, l.url FROM abuse_reports r
     LEFT JOIN links l ON l.domain_id = r.domain_id AND l.code = r.code AND NOT l.deleted WHERE r.id = $1`,
    [id],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  const domainId = Number(row.domain_id);
  const link = row.url === null ? undefined : { domainId, code: row.code, workspaceId: Number(row.workspace_id), url: row.url };
  return { domainId, code: row.code, status: row.status, link };
}

/** Closes every open report of the link with `action` by `personId`; returns how many. */
export async function closeReports(db: Queryable, domainId: number, code: string, action: ReportAction, personId: number): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE abuse_reports SET status = $3, action = $4, handled_by = $5, handled_at = now()
     WHERE domain_id = $1 AND code = $2 AND status = 'open'`,
    [domainId, code, action === 'dismiss' ? 'dismissed' : 'actioned', action, personId],
  );
  return rowCount ?? 0;
}

/** The reports' statements a route needs, each run through the breaker. */
export class ReportStore {
  readonly #db: Queryable;
  readonly #breaker: DbBreaker;

  constructor(db: Queryable, breaker: DbBreaker) {
    this.#db = db;
    this.#breaker = breaker;
  }

  link(domainId: number, code: string): Promise<ReportedLink | undefined> {
    return this.#breaker.run(() => reportedLink(this.#db, domainId, code));
  }

  add(report: NewReport): Promise<number> {
    return this.#breaker.run(() => addReport(this.#db, report));
  }
}
