// What a request for the audit log asks for: its filters and its page. Pure: no I/O. Pages are
// keyset pages, newest first: the cursor is the id of the last entry shown (base64url), so that
// entries written meanwhile never shift a page.

import { parseId } from '../core/ids.ts';

export const AUDIT_LIMIT_DEFAULT = 50;
export const AUDIT_LIMIT_MAX = 200;

export interface AuditFilter {
  readonly actorPersonId?: number;
  readonly actorKeyId?: number;
  /** An action exactly, or (`prefix`) every action that starts with it (`member.` of `member.*`). */
  readonly action?: { readonly value: string; readonly prefix: boolean };
  readonly targetType?: string;
  readonly targetId?: string;
  /** From this instant on (inclusive). */
  readonly from?: Date;
  /** Before this instant (exclusive). */
  readonly to?: Date;
}

export interface AuditQueryParams {
  actor?: string | undefined;
  action?: string | undefined;
  target?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  cursor?: string | undefined;
  limit?: string | undefined;
}

export interface AuditPageRequest {
  readonly filter: AuditFilter;
  readonly limit: number;
  /** Entries older than this id; undefined: from the newest. */
  readonly before: number | undefined;
}

export type AuditQueryVerdict =
  | { readonly ok: true; readonly request: AuditPageRequest }
  | { readonly ok: false; readonly code: 'AUDIT_QUERY_INVALID' | 'CURSOR_INVALID'; readonly message: string };

const ACTION = /^[a-z][a-z-]*(\.[a-z][a-z-]*)*$/;
const ACTION_MAX = 64;
const TARGET_TYPE = /^[a-z][a-z-]{0,31}$/;
const TARGET_ID_MAX = 300;
/** RFC 3339 with a time zone, as `at` is written: Date.parse alone would take "2026" or a local time. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

const refuse = (message: string): AuditQueryVerdict => ({ ok: false, code: 'AUDIT_QUERY_INVALID', message });

/** The filters alone (the export takes no page): an error message, or the filter. */
export function readAuditFilter(params: AuditQueryParams): AuditFilter | string {
  const filter: { -readonly [K in keyof AuditFilter]: AuditFilter[K] } = {};
  if (params.actor !== undefined) {
    const keyed = params.actor.startsWith('key:');
    const id = parseId(keyed ? params.actor.slice(4) : params.actor);
    if (id === undefined) return 'actor must be the id of a person, or key:<id> for a key.';
    if (keyed) filter.actorKeyId = id;
    else filter.actorPersonId = id;
  }
  if (params.action !== undefined) {
    const prefix = params.action.endsWith('.*');
    const value = prefix ? params.action.slice(0, -2) : params.action;
    if (value.length > ACTION_MAX || !ACTION.test(value))
      return 'action must be an action such as member.invite, or a prefix such as member.*.';
    filter.action = { value: prefix ? `${value}.` : value, prefix };
  }
  if (params.target !== undefined) {
    const colon = params.target.indexOf(':');
    const type = colon === -1 ? params.target : params.target.slice(0, colon);
    if (!TARGET_TYPE.test(type)) return 'target must be a type such as link, or type:id such as link:spring.';
    filter.targetType = type;
    if (colon !== -1) {
      const id = params.target.slice(colon + 1);
      if (id.length === 0 || id.length > TARGET_ID_MAX) return `The id of target must be 1 to ${TARGET_ID_MAX} characters.`;
      filter.targetId = id;
    }
  }
  for (const bound of ['from', 'to'] as const) {
    const text = params[bound];
    if (text === undefined) continue;
    const at = DATE_TIME.test(text) ? new Date(text) : undefined;
    if (at === undefined || Number.isNaN(at.getTime()))
      return `${bound} must be a date and time with a time zone, such as 2026-03-01T00:00:00Z.`;
    filter[bound] = at;
  }
  if (filter.from !== undefined && filter.to !== undefined && filter.from > filter.to) return 'from must not be after to.';
  return filter;
}

export function readAuditQuery(params: AuditQueryParams): AuditQueryVerdict {
  let limit = AUDIT_LIMIT_DEFAULT;
  if (params.limit !== undefined) {
    limit = /^\d{1,3}$/.test(params.limit) ? Number(params.limit) : 0;
    if (limit < 1 || limit > AUDIT_LIMIT_MAX) return refuse(`limit must be an integer from 1 to ${AUDIT_LIMIT_MAX}.`);
  }
  const filter = readAuditFilter(params);
  if (typeof filter === 'string') return refuse(filter);
  let before: number | undefined;
  if (params.cursor !== undefined) {
    before = decodeAuditCursor(params.cursor);
    if (before === undefined)
      return { ok: false, code: 'CURSOR_INVALID', message: 'cursor is not one this log gave; start again from the first page.' };
  }
  return { ok: true, request: { filter, limit, before } };
}

export function encodeAuditCursor(id: number): string {
  return Buffer.from(String(id)).toString('base64url');
}

function decodeAuditCursor(text: string): number | undefined {
  if (text.length > 30 || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  const decoded = Buffer.from(text, 'base64url').toString('latin1');
  return /^[1-9]\d{0,14}$/.test(decoded) ? parseId(decoded) : undefined;
}
